// The `tune` adapter (family A): client requests and task objects, and the same protocol spoken
// to `tune` upstreams. Pure: no Koa, no I/O.
export { decodeAudioUpload, decodeConcat, decodeFetchQuery, decodeLyricsSubmission, decodeMusicSubmission, tuneLimits, type FetchQuery } from './decode-submission.ts';
export { encodeSong, encodeTask, successEnvelope, type EncodeOptions, type Envelope, type WireLyrics, type WireSong, type WireTask } from './encode-task.ts';
export { encodeFetch, encodeLyricsSubmit, encodeMusicSubmit } from './encode-upstream.ts';
export { decodeSong, decodeSubmitData, decodeUpstreamEnvelope, decodeUpstreamTask, decodeUpstreamTasks, mapUpstreamStatus } from './decode-upstream.ts';
export { encodeTuneError, endpointUnavailable, TuneError } from './tune-error.ts';
