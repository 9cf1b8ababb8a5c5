// A client's Chat Completions request → IR ChatRequest, validated field by field
// (https://platform.openai.com/docs/api-reference/chat/create). Every failure is a 400 whose
// `param` names the field the way OpenAI does (`messages[2].role`, `temperature`).
import type { ChatRequest, ReasoningConfig, SamplingKnobs, Tool } from '../../src/ir/chat-request.ts';
import { GatewayError, invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import type { InboundContext } from '../shared/chat-adapter.ts';
import { arr, isObject, obj, oneOf, optBool, optInt, optNum, optStr, str, type Json } from '../shared/narrow.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';
import { recordDropped, type DroppedField } from '../shared/dropped-fields.ts';
import { nearestEffort, noteInto, openEnum } from '../shared/open-enum.ts';
import { decodeServiceTier } from '../shared/service-tier.ts';
import { liftOpenAIKnobs } from '../shared/openai-knobs.ts';
import { isVerbosity } from '../shared/verbosity.ts';
import {
  decodeChatFunctionCall,
  decodeChatFunctions,
  decodeChatResponseFormat,
  decodeChatToolChoice,
  decodeChatTools,
  decodeWebSearchOptions,
} from './decode-chat-tools.ts';

const FORMAT = 'openai-chat';

/** The fields this decoder maps onto the IR; every other field is kept in its `extensions` namespace. */
const mapped = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'stop',
  'n',
  'logprobs',
  'top_logprobs',
  'reasoning_effort',
  'user',
  'metadata',
  'stream',
  'stream_options',
  'functions',
  'function_call',
  'audio',
  'modalities',
  'web_search_options',
]);

const efforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

export function decodeChatRequest(body: unknown, _ctx: InboundContext): ChatRequest {
  if (!isObject(body)) throw new GatewayError('invalid-request', 'the request body must be a JSON object');
  const b = body;
  rejectUnsupported(b);
  const dropped: DroppedField[] = [];
  if (b.model === undefined || b.model === null || b.model === '')
    throw invalid('model', 'model: you must provide a model parameter');
  const model = checkModelName(str(b.model, 'model'));
  if (b.messages === undefined || b.messages === null)
    throw invalid('messages', 'messages: required (an array of messages)');
  const { system, messages } = decodeChatMessages(b.messages, dropped);
  // The deprecated `functions` / `function_call` are the same functions and choice, older spelling.
  const functions = [...decodeChatTools(b.tools, dropped), ...decodeChatFunctions(b.functions)];
  const search = decodeWebSearchOptions(b.web_search_options, dropped);
  const tools: Tool[] = search ? [...functions, search] : functions;
  const stream = optBool(b.stream, 'stream') ?? false;
  const req: ChatRequest = { model, system, messages, tools, sampling: decodeSampling(b), stream, extensions: {} };
  const toolChoice =
    decodeChatToolChoice(b.tool_choice, functions, dropped) ??
    decodeChatFunctionCall(b.function_call, functions, dropped);
  if (toolChoice) req.toolChoice = toolChoice;
  const parallel = optBool(b.parallel_tool_calls, 'parallel_tool_calls');
  if (parallel !== undefined) req.parallelToolCalls = parallel;
  const output = decodeChatResponseFormat(b.response_format);
  if (output) req.output = output;
  // `max_tokens` is the deprecated spelling; `max_completion_tokens` wins when both are sent.
  const maxTokens =
    positiveInt(b.max_completion_tokens, 'max_completion_tokens') ?? positiveInt(b.max_tokens, 'max_tokens');
  if (maxTokens !== undefined) req.maxTokens = maxTokens;
  decodeReasoning(b, req, dropped);
  const user = optStr(b.user, 'user') ?? optStr(b.safety_identifier, 'safety_identifier');
  if (user !== undefined) req.user = user;
  const metadata = decodeMetadata(b.metadata);
  if (metadata) req.metadata = metadata;
  // Chat's own options, in its namespace (adapters/shared/format-extensions.ts).
  const own: Record<string, unknown> = {};
  decodeStreamOptions(b, stream, own);
  for (const [key, value] of Object.entries(b))
    if (!mapped.has(key) && value !== undefined && value !== null) own[key] = value;
  // Knobs other formats share become IR fields; a word newer than polygate stays Chat's own.
  const tier = decodeServiceTier(FORMAT, own.service_tier);
  if (tier !== undefined) {
    req.serviceTier = tier;
    delete own.service_tier;
  }
  if (isVerbosity(own.verbosity)) {
    req.verbosity = own.verbosity;
    delete own.verbosity;
  }
  liftOpenAIKnobs(req, own);
  if (Object.keys(own).length > 0) req.extensions[FORMAT] = own;
  recordDropped(req, FORMAT, dropped);
  return req;
}

/** Output polygate cannot produce: a clear 400 rather than an answer of another kind. */
function rejectUnsupported(b: Json): void {
  if (b.audio !== undefined && b.audio !== null)
    throw invalid('audio', 'audio: audio output is not supported by polygate');
  if (b.modalities !== undefined && b.modalities !== null) {
    arr(b.modalities, 'modalities').forEach((m, i) => oneOf(m, ['text'] as const, `modalities[${i}]`));
  }
}

function ranged(v: unknown, field: string, min: number, max: number): number | undefined {
  const n = optNum(v, field);
  if (n !== undefined && (n < min || n > max))
    throw invalid(field, `${field}: must be between ${min} and ${max} (got ${n})`);
  return n;
}

function positiveInt(v: unknown, field: string): number | undefined {
  const n = optInt(v, field);
  if (n !== undefined && n < 1) throw invalid(field, `${field}: must be a positive integer (got ${n})`);
  return n;
}

function decodeSampling(b: Json): SamplingKnobs {
  const s: SamplingKnobs = {};
  const set = <K extends keyof SamplingKnobs>(k: K, v: SamplingKnobs[K] | undefined): void => {
    if (v !== undefined) s[k] = v;
  };
  set('temperature', ranged(b.temperature, 'temperature', 0, 2));
  set('topP', ranged(b.top_p, 'top_p', 0, 1));
  // `top_k` is not an OpenAI field, but vLLM-style clients send it; other upstreams can honour it.
  const topK = optInt(b.top_k, 'top_k');
  if (topK !== undefined && topK < 0) throw invalid('top_k', `top_k: must be >= 0 (got ${topK})`);
  set('topK', topK);
  set('seed', optInt(b.seed, 'seed'));
  set('presencePenalty', ranged(b.presence_penalty, 'presence_penalty', -2, 2));
  set('frequencyPenalty', ranged(b.frequency_penalty, 'frequency_penalty', -2, 2));
  set('stop', decodeStop(b.stop));
  const n = positiveInt(b.n, 'n');
  // The IR result has one candidate; asking for more would silently return fewer.
  if (n !== undefined && n > 1) throw invalid('n', `n: polygate returns a single choice; n must be 1 (got ${n})`);
  set('candidateCount', n);
  const logprobs = optBool(b.logprobs, 'logprobs');
  set('logprobs', logprobs);
  const top = optInt(b.top_logprobs, 'top_logprobs');
  if (top !== undefined) {
    if (top < 0 || top > 20) throw invalid('top_logprobs', `top_logprobs: must be between 0 and 20 (got ${top})`);
    if (logprobs !== true) throw invalid('top_logprobs', 'top_logprobs: requires logprobs to be true');
    s.topLogprobs = top;
  }
  return s;
}

/** "Up to 4 sequences": a string or an array of at most 4 strings. */
function decodeStop(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return [v];
  const list = arr(v, 'stop');
  if (list.length > 4) throw invalid('stop', `stop: at most 4 stop sequences are allowed (got ${list.length})`);
  const out = list.map((s, i) => str(s, `stop[${i}]`));
  return out.length > 0 ? out : undefined;
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort */
function decodeReasoning(b: Json, req: ChatRequest, dropped: DroppedField[]): void {
  if (b.reasoning_effort === undefined || b.reasoning_effort === null) return;
  // A level newer than polygate is read as the nearest it knows, warned.
  const effort =
    openEnum(b.reasoning_effort, efforts, 'reasoning_effort', noteInto(dropped), nearestEffort) ?? 'medium';
  let reasoning: ReasoningConfig;
  switch (effort) {
    case 'none':
      // Off, said explicitly: OpenAI upstreams get the word back (their default may be to reason).
      reasoning = { enabled: false, effort: 'none' };
      break;
    case 'minimal':
    case 'low':
    case 'medium':
    case 'high':
    case 'xhigh':
    case 'max':
      // The IR has every level; an encoder maps it to the nearest its upstream knows
      // (adapters/shared/reasoning-map.ts nearestEffort).
      reasoning = { enabled: true, effort };
      break;
    default: {
      const never: never = effort;
      return never;
    }
  }
  req.reasoning = reasoning;
}

/** Up to 16 pairs, keys up to 64 characters, string values up to 512 characters. */
function decodeMetadata(v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  const m = obj(v, 'metadata');
  const entries = Object.entries(m);
  if (entries.length > 16) throw invalid('metadata', `metadata: at most 16 pairs are allowed (got ${entries.length})`);
  const out: Record<string, string> = {};
  for (const [k, val] of entries) {
    if (k.length > 64) throw invalid('metadata', `metadata: keys are at most 64 characters ('${k.slice(0, 20)}…')`);
    const s = str(val, `metadata.${k}`);
    if (s.length > 512) throw invalid(`metadata.${k}`, `metadata.${k}: values are at most 512 characters`);
    // Defined, not assigned: `out['__proto__'] = …` would set the prototype (and a string is ignored there), losing the key.
    Object.defineProperty(out, k, { value: s, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `stream_options` is only allowed with `stream: true`; include_usage asks for the usage chunk. */
function decodeStreamOptions(b: Json, stream: boolean, extensions: Record<string, unknown>): void {
  if (b.stream_options === undefined || b.stream_options === null) return;
  if (!stream) throw invalid('stream_options', "stream_options: only allowed when 'stream' is true");
  const o = obj(b.stream_options, 'stream_options');
  const usage = optBool(o.include_usage, 'stream_options.include_usage');
  const obfuscation = optBool(o.include_obfuscation, 'stream_options.include_obfuscation');
  if (usage !== undefined) extensions['stream_options.include_usage'] = usage;
  if (obfuscation !== undefined) extensions['stream_options.include_obfuscation'] = obfuscation;
}
