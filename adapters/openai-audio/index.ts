// The `openai-audio` wire format: client requests in, transcripts and errors out, and
// the same format towards OpenAI-compatible upstreams. Pure: no Koa, no I/O (docs/architecture.md).
import { bearerCredential, type FormatModule } from '../shared/format-module.ts';
import { encodeOpenAiError } from '../shared/openai-error-body.ts';
export { sniffAudioContainer, extensionOf, sniffBytes, uploadExtensions } from './audio-container.ts';
export { speechContentType, transcriptContentType } from './audio-media-types.ts';
export { decodeAudioUpstreamError } from './audio-upstream-error.ts';
export { decodeSpeechRequest } from './decode-speech-request.ts';
export { decodeTranscriptionRequest, type FormFilePart, type FormInput } from './decode-transcription-request.ts';
export {
  encodeSpeechUpstreamRequest,
  encodeTranscriptionUpstreamRequest,
  type UpstreamFormRequest,
  type UpstreamSpeechRequest,
} from './encode-audio-upstream-request.ts';
export { encodeTranscript, timestamp, type EncodedTranscript } from './encode-transcript.ts';
export { languageName } from './iso-639-1.ts';

/**
 * The OpenAI audio format (docs/architecture.md, "The format module"). Its routes are served by
 * the speech family (src/families/speech/speech-routes.ts): multipart uploads and audio answers,
 * not the chat pipeline.
 */
export const openaiAudio: FormatModule = {
  name: 'openai-audio',
  metricLabel: 'audio',
  operation: (path) => (path.endsWith('/speech') ? 'text_to_speech' : 'speech_to_text'),
  paths: [{ prefix: '/v1/audio/' }],
  routes: [
    { method: 'POST', path: '/v1/audio/speech', kind: 'speech' },
    // Multipart uploads: the handler reads the body itself.
    { method: 'POST', path: '/v1/audio/transcriptions', kind: 'transcription', body: 'raw' },
    { method: 'POST', path: '/v1/audio/translations', kind: 'translation', body: 'raw' },
  ],
  ...bearerCredential,
  encodeError: encodeOpenAiError,
  // SpeechCreateParams and TranscriptionCreateParams in node_modules/openai/resources/audio/.
  knownFields: [
    'model',
    'input',
    'voice',
    'response_format',
    'speed',
    'instructions',
    'stream_format',
    'language',
    'prompt',
    'temperature',
    'stream',
    'timestamp_granularities',
    'include',
    'chunking_strategy',
  ],
  providers: [{ type: 'openai' }],
};
