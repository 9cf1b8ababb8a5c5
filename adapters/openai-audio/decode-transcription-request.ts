// multipart/form-data of POST /v1/audio/transcriptions and /v1/audio/translations →
// TranscriptionRequest, with the spec's rules (seeds, "Transcription form fields";
// https://platform.openai.com/docs/api-reference/audio/createTranscription). The pipeline spools
// the file to disk and hands over its name, size and first bytes; this module only judges them.
import { invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import {
  transcriptFormats,
  type TimestampGranularity,
  type TranscriptionRequest,
  type TranscriptionTask,
} from '../../src/ir/transcription.ts';
import { oneOf } from '../shared/narrow.ts';
import { extensionOf, sniffAudioContainer, uploadExtensions } from './audio-container.ts';
import { languageName } from './iso-639-1.ts';

/** A file part as spooled by the pipeline. `head` holds its first bytes (see `sniffBytes`). */
export type FormFilePart = { path: string; filename: string; mediaType: string; size: number; head: Uint8Array };

/** A parsed form: text fields and file parts, each in arrival order, repeated names repeated. */
export type FormInput = { fields: Array<[string, string]>; files: Array<[string, FormFilePart]> };

// The openai SDKs send arrays as repeated `name[]` fields; curl users often send plain `name`.
const granularityFields = ['timestamp_granularities[]', 'timestamp_granularities'];
const knownByTask: Record<TranscriptionTask, Set<string>> = {
  transcribe: new Set([
    'model',
    'language',
    'prompt',
    'response_format',
    'temperature',
    'stream',
    ...granularityFields,
  ]),
  // `language` on a translation is polygate's own hint: the language spoken in the audio.
  translate: new Set(['model', 'language', 'prompt', 'response_format', 'temperature']),
};

const supported = uploadExtensions.join(', ');

export function decodeTranscriptionRequest(task: TranscriptionTask, form: FormInput): TranscriptionRequest {
  const values = (name: string): string[] => form.fields.filter(([k]) => k === name).map(([, v]) => v);
  const single = (name: string): string | undefined => {
    if (form.files.some(([k]) => k === name)) throw invalid(name, `${name}: expected a text field, got a file`);
    const vs = values(name);
    if (vs.length > 1) throw invalid(name, `${name}: expected one value, got ${vs.length}`);
    return vs[0];
  };

  const file = decodeFile(form);
  const model = single('model');
  if (model === undefined || model === '')
    throw invalid('model', 'model: required, the speech-recognition model (e.g. whisper-1)');
  checkModelName(model);

  const language = single('language');
  if (language !== undefined && (!/^[a-z]{2}$/i.test(language) || languageName(language) === undefined)) {
    throw invalid('language', `language: '${language.slice(0, 32)}' is not an ISO-639-1 code (e.g. en, de, ja)`);
  }
  const prompt = single('prompt');
  const formatField = single('response_format');
  const format = formatField === undefined ? 'json' : oneOf(formatField, transcriptFormats, 'response_format');

  let temperature: number | undefined;
  const temperatureField = single('temperature');
  if (temperatureField !== undefined) {
    const t = temperatureField.trim() === '' ? Number.NaN : Number(temperatureField);
    if (!Number.isFinite(t)) throw invalid('temperature', 'temperature: expected a number');
    if (t < 0 || t > 1) throw invalid('temperature', 'temperature: must be from 0 to 1');
    temperature = t;
  }

  let granularities: TimestampGranularity[] | undefined;
  let stream: boolean | undefined;
  if (task === 'transcribe') {
    const given = granularityFields.flatMap((name) => values(name).flatMap((v) => v.split(',').map((s) => s.trim())));
    if (given.length > 0) {
      granularities = [...new Set(given.map((g) => oneOf(g, ['word', 'segment'] as const, 'timestamp_granularities')))];
      // https://platform.openai.com/docs/api-reference/audio/createTranscription#timestamp_granularities
      if (format !== 'verbose_json') {
        throw invalid('timestamp_granularities', 'timestamp_granularities: needs response_format verbose_json');
      }
    }
    const streamField = single('stream');
    if (streamField !== undefined) {
      if (streamField !== 'true' && streamField !== 'false') throw invalid('stream', 'stream: expected true or false');
      stream = streamField === 'true';
    }
  }

  const known = knownByTask[task];
  const extra = form.fields.filter(([k]) => !known.has(k));

  return {
    task,
    model,
    file,
    format,
    ...(language !== undefined ? { language: language.toLowerCase() } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(granularities !== undefined ? { granularities } : {}),
    ...(stream !== undefined ? { stream } : {}),
    extra,
  };
}

function decodeFile(form: FormInput): TranscriptionRequest['file'] {
  const others = form.files.filter(([k]) => k !== 'file');
  if (others.length > 0)
    throw invalid(others[0][0], `${others[0][0]}: unexpected file; the audio goes in the field 'file'`);
  const parts = form.files.filter(([k]) => k === 'file').map(([, f]) => f);
  if (parts.length === 0) {
    if (form.fields.some(([k]) => k === 'file'))
      throw invalid('file', 'file: must be an uploaded file, not a text field');
    throw invalid('file', `file: required, an audio file (${supported})`);
  }
  if (parts.length > 1) throw invalid('file', `file: expected one file, got ${parts.length}`);
  const part = parts[0];
  if (part.size === 0) throw invalid('file', 'file: the uploaded file is empty');
  if (extensionOf(part.filename) === undefined) {
    throw invalid(
      'file',
      `file: unsupported file name '${part.filename.slice(0, 64)}'; supported formats: ${supported}`,
    );
  }
  const container = sniffAudioContainer(part.head);
  if (container === undefined) {
    throw invalid(
      'file',
      `file: the content of '${part.filename.slice(0, 64)}' is not audio in a supported format (${supported})`,
    );
  }
  return { path: part.path, filename: part.filename, mediaType: part.mediaType, size: part.size, container };
}
