// POST /v1/audio/transcriptions and /v1/audio/translations: an uploaded file in, text out in the
// requested response_format (https://platform.openai.com/docs/api-reference/audio/createTranscription,
// https://platform.openai.com/docs/api-reference/audio/createTranslation).
import type { Logger } from 'pino';
import { decodeTranscriptionRequest, encodeTranscript } from '../../../adapters/openai-audio/index.ts';
import type { TranscriptionTask } from '../../ir/transcription.ts';
import { audioSecondsTotal } from '../../infra/metrics/registry.ts';
import { serveAudio } from './audio-routes-plan.ts';
import { logToolFailure } from './log-tool-failure.ts';
import { parseUpload } from './parse-upload.ts';
import { meter } from '../../services/usage/meter.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

export function transcriptionHandler(task: TranscriptionTask, log: Logger) {
  return async (ctx: GatewayContext): Promise<void> => {
    const state = ctx.state;
    const upload = await parseUpload(ctx);
    try {
      const t0 = performance.now();
      const request = decodeTranscriptionRequest(task, upload.form);
      state.timings.decodeMs = performance.now() - t0;
      const what = task === 'translate' ? 'translate audio' : 'transcribe audio';
      const out = await serveAudio(ctx, request.model, what, async (provider, route, call) => ({
        provider: route.provider,
        result: await provider.transcribe(request, route.model, call),
      })).catch((e: unknown) => {
        logToolFailure(log, ctx, e);
        throw e;
      });
      const countIn = (s: number | undefined): void => {
        if (s !== undefined) audioSecondsTotal.inc({ provider: out.provider, direction: 'in' }, s);
        meter(state, { audioSeconds: s });
      };
      ctx.status = 200;
      switch (out.result.kind) {
        case 'transcript': {
          countIn(out.result.transcript.durationSeconds);
          const t1 = performance.now();
          const enc = encodeTranscript(out.result.transcript, request.format, request.granularities);
          state.timings.encodeMs = performance.now() - t1;
          ctx.body = enc.body;
          ctx.set('content-type', enc.contentType);
          return;
        }
        case 'relay':
          // The probe ran beside the upstream call; it is done long before a real upstream answers.
          countIn(await out.result.inputSeconds);
          ctx.body = out.result.body;
          ctx.set('content-type', out.result.contentType);
          return;
        default: {
          const never: never = out.result;
          return never;
        }
      }
    } finally {
      // Every reader is done: the upstream has the whole upload once it answers, the probe is awaited.
      await upload.cleanup();
    }
  };
}
