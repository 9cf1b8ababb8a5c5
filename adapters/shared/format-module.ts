// What one wire format tells the rest of polygate about itself (docs/architecture.md, "The format
// module"). Each adapters/<format>/index.ts exports one such object; src/infra/formats/formats.ts lists them, and
// route registration, format detection, authentication, error encoding, the upstream codecs and
// the metrics iterate that list. Routes are data here: the adapters stay free of Koa.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import type {
  ChatClientCodec,
  ChatUpstreamCodec,
  EncodedError,
  RelayTarget,
  UpstreamHttpRequest,
  WireHeaders,
} from './chat-adapter.ts';

export type WireQuery = Record<string, unknown>;

/**
 * A path (compared lower-case, without a trailing slash) this format answers: the path itself and
 * everything under it. `when` claims a path several formats share (`/v1/models`) by the request's
 * headers or query; a rule with `when` that holds wins over one without.
 */
export type PathRule = {
  readonly prefix: string;
  readonly when?: (headers: WireHeaders, query: WireQuery, path: string) => boolean;
};

/**
 * How src/ serves a route; each kind's handler comes from the family that serves it
 * (src/app/route-handlers.ts) and src/app/format-routes.ts registers every route the same way.
 * - chat family: `chat` runs the chat pipeline with the format's client codec; `chat-methods` is
 *   a `{model}:{method}` path whose method picks generate, stream or count; `count-tokens` counts
 *   a request's input tokens with the format's count wire.
 * - discovery: `model-list` and `model-get` answer with the format's `models` (its answer shape).
 * - speech: `speech` (text to audio), `transcription` and `translation` (audio to text).
 * - stored responses: `stored-response-get`, `stored-response-delete`, `stored-response-input-items`.
 * - music tasks: `tune-music` and `tune-lyrics` submit, `tune-upload-url` and `tune-concat` are
 *   validated then refused, `tune-fetch` (by ids) and `tune-task` (one) read tasks, `tune-audio`
 *   serves a sandbox clip.
 */
export type RouteKind =
  | 'chat'
  | 'chat-methods'
  | 'count-tokens'
  | 'model-list'
  | 'model-get'
  | 'speech'
  | 'transcription'
  | 'translation'
  | 'stored-response-get'
  | 'stored-response-delete'
  | 'stored-response-input-items'
  | 'tune-music'
  | 'tune-lyrics'
  | 'tune-upload-url'
  | 'tune-concat'
  | 'tune-fetch'
  | 'tune-task'
  | 'tune-audio';

/**
 * `chat-methods` routes name their methods (the last path segment's text after a colon) and the
 * query a streaming call must carry; a missing one is refused naming the parameter.
 */
export type RouteMethods = {
  readonly generate: string;
  readonly stream: string;
  readonly count?: string;
  readonly streamQuery?: { readonly param: string; readonly value: string };
};

type RouteBase = {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** A router pattern (`:name` is a path parameter); compared without case, one trailing slash allowed. */
  readonly path: string;
  /**
   * `json` (the default for POST): the JSON body parser runs first; `raw`: the handler reads the
   * body itself (multipart uploads). GET and DELETE routes read no body.
   */
  readonly body?: 'json' | 'raw';
  /** `none`: no key is asked (the URL itself is the capability); otherwise the format's credential. */
  readonly auth?: 'none';
};

/** A route of one kind. */
export type RouteOf<K extends RouteKind> = K extends 'chat-methods'
  ? RouteBase & { readonly kind: K; readonly methods: RouteMethods }
  : RouteBase & { readonly kind: K };

/** One client route: a union discriminated by `kind`, so a `switch` over it is checked for every kind. */
export type RouteSpec = { [K in RouteKind]: RouteOf<K> }[RouteKind];

/** One model as the discovery routes describe it, whatever the format (src/families/discovery/model-catalog.ts fills it). */
export type ListedModel = {
  /** The client-facing name. */
  readonly id: string;
  /** The provider of the first route that serves now. */
  readonly ownedBy: string;
  readonly displayName?: string;
  readonly description?: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
};

/** A format's model list and model object (routes of kind `model-list` and `model-get`). */
export type ModelDiscovery = {
  /** `chat`: models a chat client can call; `any`: speech and music models too. */
  readonly kinds: 'chat' | 'any';
  /** The list answer; the query carries the format's paging parameters (a bad one throws, naming it). */
  list(models: readonly ListedModel[], query: WireQuery): unknown;
  /** One model's answer. */
  get(model: ListedModel): unknown;
  /** The model id the path parameter names (Gemini's `models/` prefix removed). */
  idOf(param: string): string;
  /** The 404 message for a model the caller cannot see, as the vendor words it. */
  notFound(id: string): string;
};

/** Where an upstream of this format counts a request's input tokens, and how its answer reads. */
export type CountWire = {
  /** Same format as the client: its own count body, only the model renamed (fields polygate does not know arrive). */
  relay(body: Record<string, unknown>, upstreamModel: string): { path: string; body: unknown };
  /** Another format: the request as encoded for the upstream's generate endpoint, reshaped for counting. */
  translate(generate: UpstreamHttpRequest, upstreamModel: string): { path: string; body: unknown };
  /** The count in the upstream's answer; undefined when it has none. */
  read(body: unknown): number | undefined;
  /** Client headers a relay passes on (the version and betas the client chose). */
  relayHeaders: readonly string[];
};

/** A format's token-counting endpoint: its body read as a generate request, and its answer. */
export type CountClient = {
  /** The count body as the format's generate body (what the decoder and a same-format relay take). */
  generateBody(body: unknown): Record<string, unknown>;
  encode(tokens: number): Record<string, unknown>;
  /** The generate decoder requires an output limit the count body does not carry (Anthropic's max_tokens). */
  stubsMaxTokens?: boolean;
  /**
   * Whether the decoded count request may go to a same-format upstream as the client sent it;
   * false when it names state polygate keeps (a stored conversation). Absent: always.
   */
  relayable?(request: ChatRequest): boolean;
};

/** Where a codec takes the ids and the time of objects it mints (`resp_…`, `created_at`). */
export type IdSource = {
  /** A fresh id with the given prefix. */
  newId(prefix: string): string;
  /** Unix time in seconds. */
  now(): number;
};

/** The provider config entries (`type`, optionally `api`) whose upstream speaks this format. */
export type ProviderMatch = { readonly type: string; readonly api?: readonly (string | undefined)[] };

/**
 * What a format whose clients continue conversations polygate stores (Responses'
 * `previous_response_id` and `item_reference`) tells the session that keeps them
 * (src/services/sessions/responses-session.ts), so that session reads no adapter file.
 */
export type ConversationWire = {
  /** An input item that names a stored item by id. */
  isItemReference(item: unknown): boolean;
  /** A response object as the format writes it (a relayed answer, kept for a later turn), as IR. */
  decodeResponse(body: unknown): ChatResult;
};

/** The format as spoken by chat upstreams. */
export type UpstreamSide = {
  readonly codec: ChatUpstreamCodec;
  /** Same-format pass-through: where the client's raw body goes and how its model is renamed. */
  readonly relay: RelayTarget;
  /** How this format's upstreams take the key (the client's credential is never forwarded). */
  authHeaders(key: string): Record<string, string>;
  readonly countWire?: CountWire;
};

export interface FormatModule {
  /** The one name used for this format inside polygate (logs' `inbound_format`, IR origins). */
  readonly name: string;
  /** The `family` label of metrics and log lines (an operator-facing contract: dashboards query it). */
  readonly metricLabel: string;
  /** gen_ai.operation.name of a request on `path` (tracing). */
  operation(path: string): string;
  readonly paths: readonly PathRule[];
  /**
   * Every client route of the format, as data: src/app/format-routes.ts registers them all, with
   * the format's authentication and each kind's handler. Several formats may declare one method
   * and path (`GET /v1/models`): the request goes to the format its path rules detect.
   */
  readonly routes: readonly RouteSpec[];
  /** The client's credential, read where this format's clients send it. */
  credential(headers: WireHeaders, query: WireQuery): string | undefined;
  /** Request headers that carry a client credential: never relayed to an upstream. */
  readonly credentialHeaders: readonly string[];
  /** Any error in the body this format's clients parse. */
  encodeError(err: GatewayError): EncodedError;
  /** Top-level request fields of this format's API: the values the warnings metric's `field` label may take. */
  readonly knownFields: readonly string[];
  /** Provider config types served in this format (chat upstreams, task upstreams). */
  readonly providers: readonly ProviderMatch[];
  readonly client?: ChatClientCodec;
  /** The client codec minting ids and timestamps from `ids` (golden fixtures inject a deterministic source). */
  clientFor?(ids: IdSource): ChatClientCodec;
  /** The client's token-counting endpoint (routes of kind `count-tokens` and `chat-methods`). */
  readonly countClient?: CountClient;
  /** The format's model list and model object (routes of kind `model-list` and `model-get`). */
  readonly models?: ModelDiscovery;
  readonly upstream?: UpstreamSide;
  /** Its clients continue stored conversations: the app gives each of its chat requests a session that keeps them. */
  readonly conversation?: ConversationWire;
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** A header's value (the first, when repeated). */
export const headerValue = (headers: WireHeaders, name: string): string | undefined => first(headers[name]);

/** `Authorization: Bearer <token>`. */
export function bearerToken(headers: WireHeaders): string | undefined {
  const h = first(headers.authorization);
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : undefined;
}

/** Where OpenAI's clients send their key (`Authorization: Bearer`), as a format module's fields. */
export const bearerCredential = { credential: bearerToken, credentialHeaders: ['authorization'] } as const;

export const bearerAuth = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** Whether a provider config entry matches one of a module's provider types. */
export const servesProvider = (m: FormatModule, type: string, api: string | undefined): boolean =>
  m.providers.some((p) => p.type === type && (p.api === undefined || p.api.includes(api)));
