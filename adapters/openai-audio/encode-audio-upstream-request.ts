// SpeechRequest / TranscriptionRequest → what an OpenAI-compatible upstream expects on the wire
// (https://platform.openai.com/docs/api-reference/audio). Only the model name is rewritten; the
// fields polygate does not model travel as they came. The pipeline writes the multipart body.
import type { SpeechRequest } from '../../src/ir/speech-request.ts';
import type { TranscriptionRequest } from '../../src/ir/transcription.ts';

export type UpstreamSpeechRequest = { path: '/audio/speech'; body: Record<string, unknown> };

export type UpstreamFormRequest = {
  path: '/audio/transcriptions' | '/audio/translations';
  /** Text fields in order; the file part follows them. */
  fields: Array<[string, string]>;
  file: { field: 'file'; path: string; filename: string; mediaType: string; size: number };
};

export function encodeSpeechUpstreamRequest(req: SpeechRequest, upstreamModel: string): UpstreamSpeechRequest {
  const body: Record<string, unknown> = {
    model: upstreamModel,
    input: req.input,
    voice: req.voice,
    response_format: req.format,
  };
  if (req.speed !== undefined) body.speed = req.speed;
  if (req.instructions !== undefined) body.instructions = req.instructions;
  if (req.streamFormat !== undefined) body.stream_format = req.streamFormat;
  for (const [k, v] of Object.entries(req.extra)) if (!(k in body)) body[k] = v;
  return { path: '/audio/speech', body };
}

export function encodeTranscriptionUpstreamRequest(
  req: TranscriptionRequest,
  upstreamModel: string,
): UpstreamFormRequest {
  const fields: Array<[string, string]> = [['model', upstreamModel]];
  if (req.language !== undefined) fields.push(['language', req.language]);
  if (req.prompt !== undefined) fields.push(['prompt', req.prompt]);
  fields.push(['response_format', req.format]);
  if (req.temperature !== undefined) fields.push(['temperature', String(req.temperature)]);
  for (const g of req.granularities ?? []) fields.push(['timestamp_granularities[]', g]);
  if (req.stream !== undefined) fields.push(['stream', String(req.stream)]);
  fields.push(...req.extra);
  return {
    path: req.task === 'translate' ? '/audio/translations' : '/audio/transcriptions',
    fields,
    file: {
      field: 'file',
      path: req.file.path,
      filename: req.file.filename,
      mediaType: req.file.mediaType,
      size: req.file.size,
    },
  };
}
