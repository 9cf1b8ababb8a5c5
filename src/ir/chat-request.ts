// The canonical chat request. polygate's own words: no vendor field names live here, so an
// adapter only ever translates between its wire format and these types (docs/architecture.md).
import type { ReasoningOrigin, WireFormat } from './wire-format.ts';

/** Prompt-cache hint carried from formats that have one (Anthropic `cache_control`). */
export type CacheHint = { type: 'ephemeral'; ttl?: string };

export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string; mediaType?: string }
  | { kind: 'text'; mediaType: string; text: string }
  /** A provider-side file handle (OpenAI `file_id`); only meaningful to the provider that issued it. */
  | { kind: 'file-id'; fileId: string };

export type TextPart = { type: 'text'; text: string; cache?: CacheHint; citations?: Citation[] };
export type ImagePart = { type: 'image'; source: MediaSource; detail?: 'auto' | 'low' | 'high'; cache?: CacheHint };
export type FilePart = { type: 'file'; source: MediaSource; filename?: string; title?: string; cache?: CacheHint };
/**
 * Model reasoning. `signature` (Anthropic signature, Gemini thoughtSignature, OpenAI reasoning item
 * id), `encrypted` (OpenAI encrypted_content) and `redacted` (Anthropic redacted_thinking data) are
 * opaque and kept byte-exact: they are valid only on the upstream format named by `origin`, and an
 * encoder sends them back only when `origin` is its own format.
 */
export type ReasoningPart = {
  type: 'reasoning';
  text: string;
  signature?: string;
  redacted?: string;
  encrypted?: string;
  origin: ReasoningOrigin;
  cache?: CacheHint;
};
/** `args` is the JSON text exactly as the model produced it: re-serializing could reorder or reformat it. */
export type ToolCallPart = { type: 'tool-call'; id: string; name: string; args: string; cache?: CacheHint };
export type ToolResultPart = {
  type: 'tool-result';
  callId: string;
  /** The tool's name where the wire format carries it (Gemini needs it; Anthropic does not send it). */
  name?: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
  cache?: CacheHint;
};
export type CodePart = { type: 'code'; language: string; code: string };
export type CodeResultPart = {
  type: 'code-result';
  outcome: 'ok' | 'failed' | 'deadline-exceeded' | 'unspecified';
  output: string;
};
export type RefusalPart = { type: 'refusal'; text: string };

/** The hosted tools polygate can run itself where the upstream has none (docs/hosted-tools.md). */
export type HostedToolName = 'web_search' | 'web_fetch';
/** One web page a search found (`snippet`: the backend's excerpt) or a fetch read. */
export type WebSource = { url: string; title?: string; snippet?: string; date?: string };
/**
 * A hosted tool the answer ran (Anthropic `server_tool_use`, a Responses `web_search_call`):
 * `input` is the tool's own arguments (`{query}`, `{url}`).
 */
export type HostedCallPart = { type: 'hosted-call'; id: string; tool: HostedToolName; input: Record<string, unknown> };
/**
 * What a hosted tool returned: the sources a search found, or the text of the page a fetch read;
 * `error` is the tool's error code (`max_uses_exceeded`, `unavailable`, `url_not_accessible`...)
 * when it produced nothing. Sent to an upstream as text, whatever its format.
 */
export type HostedResultPart = {
  type: 'hosted-result';
  callId: string;
  tool: HostedToolName;
  sources: WebSource[];
  page?: { url: string; title?: string; text: string; retrievedAt?: string };
  error?: string;
};

export type Part =
  | TextPart
  | ImagePart
  | FilePart
  | ReasoningPart
  | ToolCallPart
  | ToolResultPart
  | CodePart
  | CodeResultPart
  | RefusalPart
  | HostedCallPart
  | HostedResultPart;

export type Role = 'user' | 'assistant';
/** A user or assistant turn. */
export type TurnMessage = { role: Role; parts: Part[] };
/**
 * An instruction placed inside the conversation, after turns it follows (Anthropic `role: system`
 * messages, an OpenAI `system`/`developer` message once the conversation has begun, a Responses `developer`
 * input item). The leading system prompt stays in `ChatRequest.system`. Upstreams without a
 * mid-conversation instruction fold it (adapters/shared/system-message.ts).
 */
export type SystemMessage = { role: 'system'; parts: TextPart[] };
export type Message = TurnMessage | SystemMessage;

export type Citation =
  | { kind: 'url'; url: string; title?: string; start?: number; end?: number; citedText?: string }
  | { kind: 'file'; fileId: string; index?: number }
  | { kind: 'document'; documentIndex: number; title?: string; citedText?: string; start?: number; end?: number };

export type FunctionTool = {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  strict?: boolean;
  cache?: CacheHint;
};
/** Tools the provider runs itself. `options` keeps the vendor's settings for same-format relay. */
export type BuiltinTool = {
  type: 'builtin';
  kind: 'web-search' | 'web-fetch' | 'file-search' | 'computer-use' | 'code-execution' | 'bash' | 'text-editor';
  name?: string;
  options: Record<string, unknown>;
  cache?: CacheHint;
};
export type Tool = FunctionTool | BuiltinTool;

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string }
  /** Gemini `allowedFunctionNames` with mode ANY. */
  | { type: 'allowed'; names: string[]; mode: 'auto' | 'required' };

export type OutputFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json-schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean };

/**
 * The union of every format's effort levels, lowest to highest: OpenAI `none`…`xhigh`, Anthropic
 * `output_config.effort` `low`…`max`, Gemini `thinkingLevel` MINIMAL…HIGH. An encoder maps a level
 * its upstream lacks to the nearest one it has (adapters/shared/reasoning-map.ts).
 */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
/**
 * One reasoning setting for every format; README "Reasoning": a token budget and an effort are
 * converted into each other by `adapters/shared/reasoning-map.ts`.
 */
export type ReasoningConfig = {
  enabled: boolean;
  budgetTokens?: number;
  effort?: ReasoningEffort;
  /** The model decides whether and how long to think (Anthropic `thinking.type: adaptive`). */
  adaptive?: boolean;
  /** Whether the caller wants reasoning text (summaries, thoughts) returned. */
  includeThoughts?: boolean;
  summary?: 'auto' | 'concise' | 'detailed';
};

export type SamplingKnobs = {
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stop?: string[];
  candidateCount?: number;
  logprobs?: boolean;
  topLogprobs?: number;
};

export type ChatRequest = {
  /** The client-facing model name, as the caller sent it. */
  model: string;
  system: TextPart[];
  messages: Message[];
  tools: Tool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  output?: OutputFormat;
  maxTokens?: number;
  sampling: SamplingKnobs;
  reasoning?: ReasoningConfig;
  /** End-user id (Anthropic metadata.user_id, OpenAI user). */
  user?: string;
  /** Capacity tier (Anthropic and OpenAI `service_tier`); each encoder maps it to its own words. */
  serviceTier?: ServiceTier;
  /** Answer length (OpenAI Chat `verbosity`, Responses `text.verbosity`). */
  verbosity?: Verbosity;
  /** OpenAI prompt-cache routing (`prompt_cache_key`, `prompt_cache_retention`; Chat and Responses). */
  promptCacheKey?: string;
  promptCacheRetention?: string;
  /** OpenAI end-user id for abuse detection (`safety_identifier`; Chat and Responses). */
  safetyIdentifier?: string;
  metadata?: Record<string, string>;
  stream: boolean;
  /**
   * What the client sent that the IR has no place for (an unknown block type, tool field or tool
   * type). Reported as a warning on every translated route, which cannot carry it; a same-format
   * route relays the body and never decodes. `hostedTool` marks a tool the provider would run,
   * which a provider configured with `unsupported_tools: refuse` refuses instead.
   */
  unmapped?: Unmapped[];
  /**
   * Options only one format can name, in that format's namespace by wire name, written by its
   * decoder and read only by its own encoder (a same-format route keeps them). Any other encoder
   * rejects (400 naming field and provider) the ones that change the answer and drops the rest
   * with a warning: never silently (adapters/shared/format-extensions.ts).
   */
  extensions: Extensions;
};

export type Extensions = { [F in WireFormat]?: Record<string, unknown> };

/**
 * `standard`: standard capacity only (Anthropic `standard_only`, OpenAI `default`). `flex`,
 * `priority` and `scale` are OpenAI's; `auto` lets the provider choose.
 */
export type ServiceTier = 'auto' | 'standard' | 'flex' | 'priority' | 'scale';
export type Verbosity = 'low' | 'medium' | 'high';

export type Unmapped = { field: string; message: string; hostedTool?: boolean };
