// POST /v1/audio/speech body → SpeechRequest, with the spec's rules (seeds, "Speech
// body" and "Limits"; https://platform.openai.com/docs/api-reference/audio/createSpeech).
import { invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import {
  maxSpeechInputChars,
  speechFormats,
  speechVoices,
  speedRange,
  type SpeechRequest,
} from '../../src/ir/speech-request.ts';
import { isObject, oneOf, optStr } from '../shared/narrow.ts';

const known = new Set(['model', 'input', 'voice', 'response_format', 'speed', 'instructions', 'stream_format']);

export function decodeSpeechRequest(body: unknown): SpeechRequest {
  if (!isObject(body)) throw invalid('body', 'body: expected a JSON object');
  const model = body.model;
  if (typeof model !== 'string' || model === '')
    throw invalid('model', 'model: required, a non-empty string (e.g. tts-1)');
  checkModelName(model);

  const input = body.input;
  if (typeof input !== 'string' || input === '') throw invalid('input', 'input: required, the text to speak');
  // The limit is in characters, not UTF-16 code units: count code points.
  const chars = [...input].length;
  if (chars > maxSpeechInputChars)
    throw invalid('input', `input: at most ${maxSpeechInputChars} characters (got ${chars})`);

  if (body.voice === undefined || body.voice === null)
    throw invalid('voice', `voice: required, one of ${speechVoices.join(', ')}`);
  // A voice newer than polygate is no error (issue #29): the upstream takes it or says why not.
  const voice = body.voice;
  if (typeof voice !== 'string' || voice === '') throw invalid('voice', 'voice: expected a non-empty string');
  const format =
    body.response_format === undefined || body.response_format === null
      ? 'mp3'
      : oneOf(body.response_format, speechFormats, 'response_format');

  let speed: number | undefined;
  if (body.speed !== undefined && body.speed !== null) {
    if (typeof body.speed !== 'number' || !Number.isFinite(body.speed))
      throw invalid('speed', 'speed: expected a number');
    if (body.speed < speedRange.min || body.speed > speedRange.max)
      throw invalid('speed', `speed: must be from ${speedRange.min} to ${speedRange.max}`);
    speed = body.speed;
  }

  const instructions = optStr(body.instructions, 'instructions');
  if (instructions !== undefined && [...instructions].length > maxSpeechInputChars) {
    throw invalid('instructions', `instructions: at most ${maxSpeechInputChars} characters`);
  }
  const streamFormat =
    body.stream_format === undefined || body.stream_format === null
      ? undefined
      : oneOf(body.stream_format, ['audio', 'sse'] as const, 'stream_format');

  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!known.has(k)) extra[k] = v;

  return {
    model,
    input,
    voice,
    format,
    ...(speed !== undefined ? { speed } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(streamFormat !== undefined ? { streamFormat } : {}),
    extra,
  };
}
