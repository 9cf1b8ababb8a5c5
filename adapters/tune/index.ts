// The `tune` adapter: client requests and task objects, and the same protocol spoken
// to `tune` upstreams. Pure: no Koa, no I/O.
import { bearerCredential, type FormatModule } from '../shared/format-module.ts';
import { encodeTuneError as encodeError } from './tune-error.ts';
export {
  decodeAudioUpload,
  decodeConcat,
  decodeFetchQuery,
  decodeLyricsSubmission,
  decodeMusicSubmission,
  tuneLimits,
  type FetchQuery,
} from './decode-submission.ts';
export {
  encodeSong,
  encodeTask,
  successEnvelope,
  type EncodeOptions,
  type Envelope,
  type WireLyrics,
  type WireSong,
  type WireTask,
} from './encode-task.ts';
export { encodeFetch, encodeLyricsSubmit, encodeMusicSubmit } from './encode-upstream.ts';
export {
  decodeSong,
  decodeSubmitData,
  decodeUpstreamEnvelope,
  decodeUpstreamTask,
  decodeUpstreamTasks,
  mapUpstreamStatus,
} from './decode-upstream.ts';
export { encodeTuneError, endpointUnavailable, TuneError } from './tune-error.ts';

/**
 * The music-task format (docs/architecture.md, "The format module"). Its routes are served by the
 * task family (src/families/tune/tune-routes.ts).
 */
export const tune: FormatModule = {
  name: 'tune',
  metricLabel: 'tune',
  operation: () => 'generate_music',
  paths: [{ prefix: '/tune' }],
  routes: [
    { method: 'POST', path: '/tune/submit/music', kind: 'tune-music' },
    { method: 'POST', path: '/tune/submit/lyrics', kind: 'tune-lyrics' },
    { method: 'POST', path: '/tune/uploads/audio-url', kind: 'tune-upload-url' },
    { method: 'POST', path: '/tune/submit/concat', kind: 'tune-concat' },
    { method: 'POST', path: '/tune/fetch', kind: 'tune-fetch' },
    { method: 'GET', path: '/tune/fetch/:task_id', kind: 'tune-task' },
    // Sandbox audio is served without a key, as a CDN serves a real service's: the URL (a random
    // UUID) is the capability, so it can be handed to a player as is.
    { method: 'GET', path: '/tune/audio/:file', kind: 'tune-audio', auth: 'none' },
  ],
  ...bearerCredential,
  encodeError,
  // Task bodies are validated field by field (decode-submission.ts): no warnings to label.
  knownFields: [],
  providers: [{ type: 'tune' }],
};
