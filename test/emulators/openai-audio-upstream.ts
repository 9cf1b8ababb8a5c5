// An OpenAI audio upstream on loopback, speaking the wire format byte for byte
// (https://platform.openai.com/docs/api-reference/audio): `POST /v1/audio/speech` answers the audio
// file itself (chunked, `audio/mpeg` etc.), `POST /v1/audio/transcriptions` and `/translations`
// take multipart/form-data and answer each response_format (pretty-printed JSON for json and
// verbose_json, `text/plain; charset=utf-8` for text, srt and vtt). Errors use the real body
// `{error: {message, type, param, code}}`. It records every request, raw bytes included.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenLoopback, sendText } from './emulator-server.ts';

export const fixtureDir = join(import.meta.dirname, '../fixtures/openai-audio');

const speechTypes: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
/** The audio the emulator "speaks": 0.3 s of a 440 Hz tone, one fixture file per format. */
export const speechFixture = (format: string): Buffer => readFileSync(join(fixtureDir, `tone-0.3s.${format}`));

const voices = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'onyx',
  'nova',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
];
const transcriptFormats = ['json', 'text', 'srt', 'verbose_json', 'vtt'];
export const defaultTranscript = 'The quick brown fox jumps over the lazy dog.';

export type UploadedFile = { field: string; filename: string; type: string; bytes: Buffer };

export type AudioRecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as it arrived. */
  raw: Buffer;
  /** Speech: the parsed JSON body. */
  json?: unknown;
  /** Transcription / translation: the parsed form, text fields in order. */
  fields?: Array<[string, string]>;
  files?: UploadedFile[];
};

/** An error answer; what is left out takes OpenAI's default for the status. */
export type AudioError = {
  status: number;
  message?: string;
  type?: string;
  param?: string | null;
  code?: string | null;
  retryAfter?: number;
};

export type AudioReply = { kind: 'transcript'; text: string } | ({ kind: 'error' } & AudioError);

export interface AudioEmulator {
  /** Base URL as a provider's base_url names it: http://127.0.0.1:PORT/v1. */
  readonly url: string;
  /** The key this upstream accepts (`Authorization: Bearer`). */
  readonly key: string;
  readonly requests: AudioRecordedRequest[];
  script(...replies: AudioReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startOpenAIAudioUpstream(key = 'sk-upstream-audio-key'): Promise<AudioEmulator> {
  const requests: AudioRecordedRequest[] = [];
  const queue: AudioReply[] = [];
  const server = createServer((req, res) => {
    void handle(req, res, key, requests, queue).catch(() => res.destroy());
  });
  const listening = await listenLoopback(server, '/v1');
  return {
    url: listening.url,
    key,
    requests,
    script: (...replies) => void queue.push(...replies),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: listening.close,
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  key: string,
  requests: AudioRecordedRequest[],
  queue: AudioReply[],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  const path = (req.url ?? '/').split('?')[0];
  const rec: AudioRecordedRequest = {
    method: req.method ?? '',
    path: req.url ?? '/',
    headers: { ...req.headers },
    raw,
  };
  requests.push(rec);
  res.setHeader('x-request-id', `req_${randomBytes(16).toString('hex')}`);
  res.setHeader('openai-version', '2020-10-01');
  res.setHeader('openai-processing-ms', '42');

  const auth = req.headers.authorization;
  if (!auth) return sendError(res, { status: 401, message: "You didn't provide an API key.", code: null });
  if (auth !== `Bearer ${key}`) {
    const shown = auth.replace(/^Bearer\s+/, '');
    return sendError(res, {
      status: 401,
      message: `Incorrect API key provided: ${shown.slice(0, 3)}***${shown.slice(-4)}.`,
      code: 'invalid_api_key',
    });
  }
  if (req.method !== 'POST') return sendError(res, { status: 404, message: `Invalid URL (${req.method} ${path})` });
  if (path === '/v1/audio/speech') return speech(res, rec, queue);
  if (path === '/v1/audio/transcriptions' || path === '/v1/audio/translations') {
    return transcription(req, res, rec, queue, path.endsWith('translations') ? 'translate' : 'transcribe');
  }
  return sendError(res, { status: 404, message: `Invalid URL (${req.method} ${path})` });
}

function speech(res: ServerResponse, rec: AudioRecordedRequest, queue: AudioReply[]): void {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(rec.raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    return sendError(res, { status: 400, message: 'We could not parse the JSON body of your request.' });
  }
  rec.json = body;
  const reply = queue.shift();
  if (reply?.kind === 'error') return sendError(res, reply);
  if (typeof body.model !== 'string') return sendError(res, missing('model'));
  if (typeof body.input !== 'string') return sendError(res, missing('input'));
  if (typeof body.voice !== 'string' || !voices.includes(body.voice))
    return sendError(res, { status: 400, message: `Invalid value for 'voice'.`, param: 'voice' });
  const format = typeof body.response_format === 'string' ? body.response_format : 'mp3';
  if (!speechTypes[format])
    return sendError(res, { status: 400, message: `Invalid value for 'response_format'.`, param: 'response_format' });
  // Speech is streamed as it is generated: chunked, no content-length.
  res.writeHead(200, { 'content-type': speechTypes[format], 'transfer-encoding': 'chunked' });
  const audio = speechFixture(format);
  res.write(audio.subarray(0, Math.floor(audio.length / 2)));
  res.end(audio.subarray(Math.floor(audio.length / 2)));
}

async function transcription(
  req: IncomingMessage,
  res: ServerResponse,
  rec: AudioRecordedRequest,
  queue: AudioReply[],
  task: 'transcribe' | 'translate',
): Promise<void> {
  const contentType = req.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data'))
    return sendError(res, { status: 400, message: 'Could not parse multipart form' });
  let form: FormData;
  try {
    form = await new Request('http://upstream.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(rec.raw),
    }).formData();
  } catch {
    return sendError(res, { status: 400, message: 'Could not parse multipart form' });
  }
  rec.fields = [];
  rec.files = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') rec.fields.push([name, value]);
    else
      rec.files.push({
        field: name,
        filename: value.name,
        type: value.type,
        bytes: Buffer.from(await value.arrayBuffer()),
      });
  }
  const field = (name: string): string | undefined => rec.fields?.find(([k]) => k === name)?.[1];
  const reply = queue.shift();
  if (reply?.kind === 'error') return sendError(res, reply);
  if (!rec.files.some((f) => f.field === 'file')) return sendError(res, missing('file'));
  if (!field('model')) return sendError(res, missing('model'));
  const format = field('response_format') ?? 'json';
  if (!transcriptFormats.includes(format))
    return sendError(res, { status: 400, message: `Invalid value for 'response_format'.`, param: 'response_format' });

  const text = reply?.kind === 'transcript' ? reply.text : defaultTranscript;
  const granularities = (rec.fields ?? []).filter(([k]) => k === 'timestamp_granularities[]').map(([, v]) => v);
  const duration = 2.5;
  const plain = (body: string): void => sendText(res, 200, body, 'text/plain; charset=utf-8');
  switch (format) {
    case 'text':
      return plain(`${text}\n`);
    case 'srt':
      return plain(`1\n00:00:00,000 --> 00:00:02,500\n${text}\n\n`);
    case 'vtt':
      return plain(`WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n${text}\n\n`);
    case 'verbose_json': {
      const out: Record<string, unknown> = { task, language: 'english', duration, text };
      const words = text.split(/\s+/).filter(Boolean);
      if (task === 'transcribe' && granularities.includes('word')) {
        out.words = words.map((w, i) => ({
          word: w.replace(/[.,]/g, ''),
          start: (i * duration) / words.length,
          end: ((i + 1) * duration) / words.length,
        }));
      }
      if (task === 'translate' || granularities.length === 0 || granularities.includes('segment')) {
        out.segments = [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: duration,
            text: ` ${text}`,
            tokens: [50364, 440, 50489],
            temperature: 0,
            avg_logprob: -0.25,
            compression_ratio: 1.1,
            no_speech_prob: 0.01,
          },
        ];
      }
      out.usage = { type: 'duration', seconds: Math.ceil(duration) };
      return sendJson(res, 200, out);
    }
    default:
      return sendJson(res, 200, { text, usage: { type: 'duration', seconds: Math.ceil(duration) } });
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // OpenAI's JSON answers are pretty-printed.
  sendText(res, status, JSON.stringify(body, null, 2), 'application/json', headers);
}

/** OpenAI's answer to a required field left out. */
const missing = (param: string): AudioError => ({
  status: 400,
  message: `Missing required parameter: '${param}'.`,
  param,
  code: 'missing_required_parameter',
});

function sendError(res: ServerResponse, e: AudioError): void {
  const type =
    e.type ?? (e.status === 429 ? 'rate_limit_error' : e.status >= 500 ? 'server_error' : 'invalid_request_error');
  const headers: Record<string, string> = e.retryAfter !== undefined ? { 'retry-after': String(e.retryAfter) } : {};
  sendJson(
    res,
    e.status,
    { error: { message: e.message ?? `HTTP ${e.status}`, type, param: e.param ?? null, code: e.code ?? null } },
    headers,
  );
}
