// An OpenAI-compatible upstream for the `openai-audio` format (provider type `openai`): speech relayed as the
// audio bytes the upstream sends, uploads streamed from the spool file, every transcript format
// relayed as it comes (https://platform.openai.com/docs/api-reference/audio).
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  decodeAudioUpstreamError,
  encodeSpeechUpstreamRequest,
  encodeTranscriptionUpstreamRequest,
  speechContentType,
  transcriptContentType,
} from '../../../adapters/openai-audio/index.ts';
// OpenAI's own Retry-After rule (retry-after-ms, then retry-after): the audio API is OpenAI's.
import { retryAfterOf } from '../../../adapters/shared/retry-after.ts';
import type { WireHeaders } from '../../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';
import { pcmLayout, type SpeechRequest } from '../../ir/speech-request.ts';
import type { TranscriptionRequest } from '../../ir/transcription.ts';
import { authHeaders } from '../../services/providers/http-chat-provider.ts';
import { errorBodyOf, upstreamRequest } from '../../infra/upstream/upstream-request.ts';
import type { AudioCall, AudioProvider, SpeechOutput, TranscriptionOutput } from './audio-provider.ts';
import { probeDuration } from './ffmpeg.ts';
import { multipartBody } from './multipart-body.ts';
import { findExecutable } from './system-tools.ts';

export class OpenAIAudioProvider implements AudioProvider {
  readonly name: string;
  readonly wireFormat = 'openai-audio' as const;
  readonly #baseUrl: string;
  readonly #headers: Record<string, string>;
  /** The runtime's pool for a route's connect timeout (undici sets it per pool). */
  readonly #dispatcherFor: (connectMs: number) => Dispatcher;

  constructor(name: string, cfg: ProviderConfig, dispatcherFor: (connectMs: number) => Dispatcher) {
    this.name = name;
    this.#baseUrl = (cfg.base_url ?? '').replace(/\/+$/, '');
    this.#headers = { ...(cfg.headers ?? {}), ...authHeaders(cfg) };
    this.#dispatcherFor = dispatcherFor;
  }

  async synthesize(req: SpeechRequest, upstreamModel: string, call: AudioCall): Promise<SpeechOutput> {
    const enc = encodeSpeechUpstreamRequest(req, upstreamModel);
    const res = await this.#send(enc.path, call, {
      headers: { 'content-type': 'application/json', accept: 'application/octet-stream' },
      body: JSON.stringify(enc.body),
    });
    const contentType = headerOf(res.headers, 'content-type') ?? speechContentType(req.format);
    // Raw PCM and WAV durations follow from their byte count; compressed formats would need decoding.
    const bytesPerSecond = pcmLayout.sampleRate * pcmLayout.channels * pcmLayout.bytesPerSample;
    if (req.format !== 'pcm' && req.format !== 'wav')
      return { contentType, body: res.body, outputSeconds: Promise.resolve(undefined) };
    const header = req.format === 'wav' ? 44 : 0;
    let bytes = 0;
    let done: (s: number | undefined) => void = () => {};
    const outputSeconds = new Promise<number | undefined>((resolve) => (done = resolve));
    const counted = new Transform({
      transform(chunk: Buffer, _enc, next) {
        bytes += chunk.length;
        next(null, chunk);
      },
      flush(next) {
        done(Math.max(0, bytes - header) / bytesPerSecond);
        next();
      },
    });
    counted.once('close', () => done(undefined));
    res.body.once('error', (e) => counted.destroy(e));
    return { contentType, body: res.body.pipe(counted), outputSeconds };
  }

  async transcribe(req: TranscriptionRequest, upstreamModel: string, call: AudioCall): Promise<TranscriptionOutput> {
    const enc = encodeTranscriptionUpstreamRequest(req, upstreamModel);
    const body = multipartBody(enc.fields, enc.file);
    // The upload's length in seconds for metrics, measured beside the upstream call when ffprobe exists.
    const ffprobe = findExecutable('ffprobe');
    const inputSeconds = ffprobe
      ? probeDuration(ffprobe, req.file.path, { timeoutMs: 10_000 }).catch(() => undefined)
      : Promise.resolve(undefined);
    const res = await this.#send(enc.path, call, {
      headers: { 'content-type': body.contentType, 'content-length': String(body.length), accept: 'application/json' },
      body: body.stream(),
    });
    return {
      kind: 'relay',
      contentType: headerOf(res.headers, 'content-type') ?? transcriptContentType(req.format),
      body: res.body,
      inputSeconds,
    };
  }

  async #send(
    path: string,
    call: AudioCall,
    r: { headers: Record<string, string>; body: string | Readable },
  ): Promise<Dispatcher.ResponseData> {
    const res = await upstreamRequest({
      provider: this.name,
      upstreamFormat: this.wireFormat,
      url: this.#baseUrl + path,
      dispatcher: this.#dispatcherFor(call.timeouts.connectMs),
      timeouts: call.timeouts,
      signal: call.signal,
      headers: { ...r.headers, ...this.#headers },
      body: r.body,
    });
    if (res.statusCode < 400) return res;
    throw decodeAudioUpstreamError(res.statusCode, await errorBodyOf(res), retryAfterOf(res.headers as WireHeaders));
  }
}

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
