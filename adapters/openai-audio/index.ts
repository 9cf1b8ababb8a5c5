// The `openai-audio` wire format (family B): client requests in, transcripts and errors out, and
// the same format towards OpenAI-compatible upstreams. Pure: no Koa, no I/O (docs/architecture.md).
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
