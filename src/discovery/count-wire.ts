import type { ChatFormat, UpstreamHttpRequest } from '../../adapters/shared/chat-adapter.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const pick = (body: unknown, fields: readonly string[]): Json => (isObject(body) ? Object.fromEntries(fields.filter((f) => body[f] !== undefined).map((f) => [f, body[f]])) : {});

/** Where an upstream counts a request's input tokens, and how its answer reads. */
export type CountWire = {
  /** Same format as the client: its own count body, only the model renamed (fields polygate does not know arrive). */
  relay(body: Json, upstreamModel: string): { path: string; body: unknown };
  /** Another format: the request as encoded for the upstream's generate endpoint, reshaped for counting. */
  translate(generate: UpstreamHttpRequest, upstreamModel: string): { path: string; body: unknown };
  /** The count in the upstream's answer; undefined when it has none. */
  read(body: unknown): number | undefined;
  /** Client headers a relay passes on (the version and betas the client chose). */
  relayHeaders: readonly string[];
};

const count = (body: unknown, field: string): number | undefined => {
  const n = isObject(body) ? body[field] : undefined;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/**
 * The fields Anthropic's count_tokens takes (MessageCountTokensParams in
 * node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts, and its beta's); it refuses
 * generation-only ones such as max_tokens.
 */
const anthropicCountFields = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'cache_control', 'speed', 'context_management', 'mcp_servers'];

/** The fields of OpenAI's `POST /responses/input_tokens` (node_modules/openai/resources/responses/input-tokens.d.ts). */
const responsesCountFields = ['model', 'input', 'instructions', 'tools', 'tool_choice', 'reasoning', 'text', 'truncation', 'conversation', 'previous_response_id', 'parallel_tool_calls', 'personality'];

const geminiPath = (model: string): string => `/v1beta/models/${encodeURIComponent(model.replace(/^models\//, ''))}:countTokens`;
const geminiModelName = (model: string): string => `models/${model.replace(/^models\//, '')}`;

/** Upstream formats with a counting endpoint; Chat Completions has none (polygate estimates). */
export const countWires: Partial<Record<ChatFormat, CountWire>> = {
  'anthropic-messages': {
    relay: (body, model) => ({ path: '/v1/messages/count_tokens', body: { ...body, model } }),
    translate: (g) => ({ path: '/v1/messages/count_tokens', body: pick(g.body, anthropicCountFields) }),
    read: (body) => count(body, 'input_tokens'),
    relayHeaders: ['anthropic-version', 'anthropic-beta'],
  },
  // https://ai.google.dev/api/tokens#method:-models.counttokens: `contents`, or a whole
  // `generateContentRequest` (system instruction and tools count too) that names the model.
  gemini: {
    relay: (body, model) => ({
      path: geminiPath(model),
      body: isObject(body.generateContentRequest) ? { ...body, generateContentRequest: { ...body.generateContentRequest, model: geminiModelName(model) } } : body,
    }),
    translate: (g, model) => ({ path: geminiPath(model), body: { generateContentRequest: { model: geminiModelName(model), ...(isObject(g.body) ? g.body : {}) } } }),
    read: (body) => count(body, 'totalTokens'),
    relayHeaders: [],
  },
  'openai-responses': {
    relay: (body, model) => ({ path: '/responses/input_tokens', body: { ...body, model } }),
    translate: (g) => ({ path: '/responses/input_tokens', body: pick(g.body, responsesCountFields) }),
    read: (body) => count(body, 'input_tokens'),
    relayHeaders: ['openai-beta'],
  },
};
