// POST /v1/audio/speech: JSON in, the audio file out
// (https://platform.openai.com/docs/api-reference/audio/createSpeech).
import type { Logger } from 'pino';
import { decodeSpeechRequest } from '../../../adapters/openai-audio/index.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { audioSecondsTotal, speechCharactersTotal } from '../../infra/metrics/registry.ts';
import { serveAudio } from './audio-routes-plan.ts';
import { logToolFailure } from './log-tool-failure.ts';
import { meter } from '../../services/usage/meter.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

export const speechHandler =
  (log: Logger) =>
  async (ctx: GatewayContext): Promise<void> => {
    const state = ctx.state;
    if (!ctx.is('application/json'))
      throw new GatewayError('invalid-request', 'content-type must be application/json', {
        status: 415,
        param: 'content-type',
      });
    const t0 = performance.now();
    const request = decodeSpeechRequest(ctx.request.body);
    state.timings.decodeMs = performance.now() - t0;

    const out = await serveAudio(ctx, request.model, 'synthesize speech', async (provider, route, call) => ({
      provider: route.provider,
      audio: await provider.synthesize(request, route.model, call),
    })).catch((e: unknown) => {
      logToolFailure(log, ctx, e);
      throw e;
    });
    speechCharactersTotal.inc({ provider: out.provider }, [...request.input].length);
    meter(state, { characters: [...request.input].length, audioSeconds: out.audio.outputSeconds });
    void out.audio.outputSeconds.then((s) => {
      if (s !== undefined) audioSecondsTotal.inc({ provider: out.provider, direction: 'out' }, s);
    });
    ctx.status = 200;
    ctx.body = out.audio.body;
    // After the body: Koa would otherwise guess a type from it.
    ctx.set('content-type', out.audio.contentType);
  };
