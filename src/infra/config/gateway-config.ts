// Types of config/gateway.yaml after interpolation and validation. The names are the operator
// contract (README, "Configuration"); config/gateway.schema.json is the source of truth for what is allowed.
import type { AdminConfig, TracingConfig, UsageConfig } from './usage-config.ts';
import type { HostedToolsConfig, HostedToolsMode, SearchBackendConfig } from './hosted-tools-config.ts';

export type ProviderType =
  | 'openai'
  | 'azure-openai'
  | 'bedrock'
  | 'vertex'
  | 'anthropic'
  | 'gemini'
  | 'tune'
  | 'echo'
  | 'local-speech'
  | 'sandbox-tune';

export type ProviderConfig = {
  type: ProviderType;
  base_url?: string;
  api_key?: string;
  /** OpenAI: which API; Bedrock: InvokeModel with the Messages body (Claude), or Converse (any model). */
  api?: 'chat_completions' | 'responses' | 'invoke' | 'converse';
  headers?: Record<string, string>;
  /** A hosted tool the provider's format cannot carry: dropped with a warning (default) or refused (docs/open-world.md). */
  unsupported_tools?: 'drop' | 'refuse';
  /** Web search and fetch this provider cannot run: run by polygate, dropped or refused (docs/hosted-tools.md). */
  hosted_tools?: HostedToolsMode;
  /** The Chat Completions dialect of an OpenAI-compatible server (`type: openai`; docs/providers.md). */
  compat?: 'openai' | 'vllm' | 'ollama' | 'deepseek' | 'openrouter';
  /** Azure OpenAI (docs/providers.md): set, the deployment paths with `?api-version=`; unset, the v1 path. */
  api_version?: string;
  /**
   * Azure OpenAI: the key in an `api-key` header (default), a bearer token you supply (`bearer`),
   * or Entra ID tokens polygate fetches and refreshes itself (`entra`).
   */
  auth?: 'api_key' | 'bearer' | 'entra';
  /** Azure OpenAI with `auth: entra`: the service principal (all three), or DefaultAzureCredential. */
  tenant_id?: string;
  client_id?: string;
  client_secret?: string;
  /** Azure OpenAI with `auth: entra`: the Entra authority (a sovereign cloud's); default Azure's public one. */
  authority_host?: string;
  /** Bedrock (docs/providers.md): the AWS region, and the credentials (none given: the AWS default chain). */
  region?: string;
  access_key_id?: string;
  secret_access_key?: string;
  session_token?: string;
  /** Bedrock: a profile of the shared AWS config files (~/.aws/credentials, ~/.aws/config). */
  profile?: string;
  /** Vertex AI (docs/providers.md): the Google Cloud project; `region` is its location (`global` or a region). */
  project?: string;
  /** Vertex AI: a service-account key file; unset, Application Default Credentials. */
  credentials_file?: string;
};

/** Per-route overrides of the upstream.*_timeout_ms settings (docs/resilience.md). */
export type TimeoutsConfig = { connect_ms?: number; first_byte_ms?: number; idle_ms?: number };

/** Retries of one route before the next one is tried (docs/resilience.md). */
export type RetriesConfig = {
  max_retries: number;
  base_delay_ms: number;
  max_delay_ms: number;
  max_retry_after_ms: number;
};

/** Circuit breaker per provider and upstream model (docs/resilience.md). */
export type BreakerConfig = {
  consecutive_failures: number;
  failure_ratio: number;
  min_calls: number;
  window_ms: number;
  cooldown_ms: number;
};

/**
 * `model` is the upstream's name; omitted or `{model}` it is the client's own name, and `{1}`…
 * are the parts a glob entry's `*`s matched (docs/models.md). A `standby` route serves only while
 * no other route of the model has an enabled provider.
 */
export type RouteConfig = {
  provider: string;
  model?: string;
  standby?: boolean;
  weight?: number;
  timeouts?: TimeoutsConfig;
  retries?: Partial<RetriesConfig>;
  hosted_tools?: HostedToolsMode;
};

/** A `models:` entry; its key is an exact client-facing name or a glob (`*`, `?`). */
export type ModelConfig = {
  strategy?: 'fallback' | 'weighted';
  routes: RouteConfig[];
  context_window?: number;
  breaker?: Partial<BreakerConfig>;
  /** Reported by the discovery endpoints (docs/discovery.md). */
  max_output_tokens?: number;
  display_name?: string;
  description?: string;
  hosted_tools?: HostedToolsMode;
};

export type KeyConfig = {
  id: string;
  secret?: string;
  secret_sha256?: string;
  workspace: string;
  models?: string[];
  limits?: { rpm?: number; tpm?: number; concurrency?: number };
};

export type GatewayConfig = {
  /** Client connections (docs/security.md): receive timeouts and a cap on open connections. */
  listen: {
    host: string;
    port: number;
    headers_timeout_ms: number;
    body_timeout_ms: number;
    max_connections?: number;
    accept_queues: number;
  };
  storage: { driver: 'memory' | 'sqlite' | 'redis'; path?: string; url?: string };
  outbound: { allow_private_addresses: boolean };
  limits: {
    max_body_bytes: number;
    max_upload_bytes: number;
    /** JSON bodies nested deeper get 400 (src/infra/http/json-body.ts). */
    max_json_depth: number;
    /** A JSON array with more items gets 400 naming it, checked before the body is parsed (src/infra/http/json-shape.ts). */
    max_json_items: number;
    /** A JSON object with more keys gets 400 naming it, checked before the body is parsed. */
    max_json_keys: number;
    /** A `previous_response_id` chain whose stored conversation would grow past this gets 400. */
    max_conversation_bytes: number;
    /** Stored Responses of one workspace (their JSON bytes, src/infra/store/store.ts putCounted) may hold at most this. */
    max_workspace_stored_bytes: number;
  };
  upstream: {
    connect_timeout_ms: number;
    first_byte_timeout_ms: number;
    idle_timeout_ms: number;
    max_connections: number;
    /** An upstream answer (a JSON body, an error body, one SSE event) held in memory may be at most this big (docs/resilience.md). */
    max_answer_bytes: number;
    retries: RetriesConfig;
    breaker: BreakerConfig;
  };
  reload: { watch: boolean; debounce_ms: number };
  /** Responses over WebSocket (docs/responses-websocket.md, src/families/responses/serve-responses-sockets.ts). */
  responses_websocket: ResponsesWebsocketConfig;
  /** On SIGTERM, how long in-flight requests and streams may take before they are cut. */
  shutdown_deadline_ms: number;
  metrics: { bearer_token?: string };
  log: { level: string; content: boolean };
  keys: KeyConfig[];
  providers: Record<string, ProviderConfig>;
  models: Record<string, ModelConfig>;
  tune: TuneConfig;
  /** Usage ledger, prices, budgets; the admin read API; OpenTelemetry traces (src/services/usage/, src/infra/tracing/). */
  usage: UsageConfig;
  admin: AdminConfig;
  tracing: TracingConfig;
  /** Search APIs and the limits of the hosted tools polygate runs (docs/hosted-tools.md). */
  search_backends: Record<string, SearchBackendConfig>;
  hosted_tools: HostedToolsConfig;
};

/** Music tasks, the `tune` format (docs/tune.md). */
export type TuneConfig = {
  music_models: string[];
  default_model: string;
  lyrics_model?: string;
  poll_interval_ms: number;
  task_deadline_s: number;
  /** How long one instance holds a claimed task step before another may take it over. */
  task_lease_ms: number;
  sandbox_delay_ms: number;
  public_base_url?: string;
  callback: { secret: string; max_attempts: number; backoff_ms: number; max_backoff_ms: number; timeout_ms: number };
};

/** A config that passed validation, with what loading it found worth telling the operator. */
export type LoadedConfig = {
  config: GatewayConfig;
  /** Providers switched off because a variable their key needs is unset. */
  disabledProviders: Map<string, string>;
  warnings: string[];
};

export type ResponsesWebsocketConfig = {
  max_message_bytes: number;
  max_socket_bytes: number;
  idle_timeout_ms: number;
  ping_interval_ms: number;
  max_concurrent_responses: number;
  max_connection_ms: number;
  /** Bounds on what waits behind a running response (issue #30): per lane, per socket, bytes per socket. */
  max_queued_per_lane: number;
  max_queued_responses: number;
  max_queued_bytes: number;
  /** What all sockets together may hold (remembered, prepared, queued and running turns). */
  max_total_bytes: number;
};
