// A client's Responses request → IR ChatRequest, validated against the API reference and the
// spec's Limits table (https://platform.openai.com/docs/api-reference/responses/create). Every
// failure is a 400 whose `param` names the field the way OpenAI does (`metadata`,
// `text.format.name`, `tools[0].max_num_results`, `input[2].content[0].type`). Fields the IR has
// no place for are kept in `extensions` by wire name (see responses-extensions.ts), so encoders
// can carry, emulate or reject them, and pass-through keeps them.
import type { ChatRequest, ReasoningConfig, SamplingKnobs } from '../../src/ir/chat-request.ts';
import { GatewayError, invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import type { InboundContext } from '../shared/chat-adapter.ts';
import { arr, isObject, obj, optBool, optStr, str, type Json } from '../shared/narrow.ts';
import { decodeInput } from './decode-input-items.ts';
import { decodeTextFormat, decodeToolChoice, decodeTools } from './decode-responses-tools.ts';
import { recordDropped } from '../shared/dropped-fields.ts';
import { decodeServiceTier } from '../shared/service-tier.ts';
import { liftOpenAIKnobs } from '../shared/openai-knobs.ts';
import { isVerbosity } from '../shared/verbosity.ts';
import { newNotes } from './decode-notes.ts';
import { ext } from './responses-extensions.ts';
import { toolIdentitiesKey } from './tool-identities.ts';
import { absent, integerIn, missing, numberIn, required } from './responses-validate.ts';
import { nearestEffort, noteInto, openEnum, type EnumNote } from '../shared/open-enum.ts';

/** Fields mapped onto the IR (or onto documented extensions); any other field is kept as sent. */
const mapped = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'reasoning',
  'max_output_tokens',
  'temperature',
  'top_p',
  'top_logprobs',
  'metadata',
  'service_tier',
  'user',
  'include',
  'truncation',
  'store',
  'stream',
  'previous_response_id',
]);

const efforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
const summaries = ['auto', 'concise', 'detailed'] as const;

export function decodeResponsesRequest(body: unknown, _ctx: InboundContext): ChatRequest {
  if (!isObject(body)) throw new GatewayError('invalid-request', 'The request body must be a JSON object.');
  const b = body;
  const model = checkModelName(required(b.model, 'model', str));
  if (absent(b.input)) throw missing('input');
  const notes = newNotes();
  const input = decodeInput(b.input, notes, !absent(b.previous_response_id));
  const system = input.system;
  const instructions = optStr(b.instructions, 'instructions');
  // `instructions` is "inserted as the first system/developer message".
  if (instructions !== undefined && instructions !== '') system.unshift({ type: 'text', text: instructions });
  const tools = decodeTools(b.tools, notes);
  const include = decodeInclude(b.include);
  const req: ChatRequest = {
    model,
    system,
    messages: input.messages,
    tools,
    sampling: decodeSampling(b, include),
    stream: optBool(b.stream, 'stream') ?? false,
    extensions: {},
  };
  // The Responses-only options, in this format's namespace (adapters/shared/format-extensions.ts).
  const e: Record<string, unknown> = {};
  const toolChoice = decodeToolChoice(b.tool_choice, tools, notes);
  if (toolChoice) req.toolChoice = toolChoice;
  const parallel = optBool(b.parallel_tool_calls, 'parallel_tool_calls');
  if (parallel !== undefined) req.parallelToolCalls = parallel;
  const text = decodeTextFormat(b.text);
  if (text.output) req.output = text.output;
  // A word newer than polygate stays this format's own.
  if (isVerbosity(text.verbosity)) req.verbosity = text.verbosity;
  else if (text.verbosity) e[ext.verbosity] = text.verbosity;
  if (!absent(b.max_output_tokens)) req.maxTokens = integerIn(b.max_output_tokens, 'max_output_tokens', 16);
  decodeReasoning(b.reasoning, req, noteInto(notes.dropped));
  const user = optStr(b.user, 'user');
  if (user !== undefined) req.user = user;
  const metadata = decodeMetadata(b.metadata);
  if (metadata) req.metadata = metadata;

  if (instructions !== undefined) e[ext.instructions] = instructions;
  const previous = optStr(b.previous_response_id, 'previous_response_id');
  if (previous !== undefined) e[ext.previousResponseId] = previous;
  e[ext.store] = optBool(b.store, 'store') ?? true;
  if (include.length > 0) e[ext.include] = include;
  // A truncation strategy newer than polygate is left out (the upstream's default), warned.
  const truncation = absent(b.truncation)
    ? undefined
    : openEnum(b.truncation, ['auto', 'disabled'] as const, 'truncation', noteInto(notes.dropped));
  if (truncation !== undefined) e[ext.truncation] = truncation;
  // polygate maps the tier (or warns it away) and never acts on it: a tier newer than polygate is no error.
  if (!absent(b.service_tier)) {
    const word = str(b.service_tier, 'service_tier');
    const tier = decodeServiceTier('openai-responses', word);
    if (tier !== undefined) req.serviceTier = tier;
    else e[ext.serviceTier] = word;
  }
  if (input.references.length > 0) {
    e[ext.itemReferences] = input.references.map((r) => r.id);
    e[ext.itemReferenceSlots] = input.references;
  }
  for (const [key, value] of Object.entries(b))
    if (!mapped.has(key) && value !== undefined && value !== null) e[key] = value;
  if (Object.keys(notes.identities).length > 0) e[toolIdentitiesKey] = notes.identities;
  liftOpenAIKnobs(req, e);
  req.extensions['openai-responses'] = e;
  recordDropped(req, 'openai-responses', notes.dropped);
  return req;
}

/**
 * Known values shape polygate's answer; a value newer than polygate is kept (an OpenAI upstream
 * gets it) and means nothing to the other encoders, which only read the ones they know.
 */
function decodeInclude(v: unknown): string[] {
  if (absent(v)) return [];
  return arr(v, 'include').map((x, i) => str(x, `include[${i}]`));
}

function decodeSampling(b: Json, include: string[]): SamplingKnobs {
  const s: SamplingKnobs = {};
  if (!absent(b.temperature)) s.temperature = numberIn(b.temperature, 'temperature', 0, 2);
  if (!absent(b.top_p)) s.topP = numberIn(b.top_p, 'top_p', 0, 1);
  if (!absent(b.top_logprobs)) s.topLogprobs = integerIn(b.top_logprobs, 'top_logprobs', 0, 20);
  // Responses returns logprobs only when `include` asks for them.
  if (include.includes('message.output_text.logprobs')) s.logprobs = true;
  return s;
}

/**
 * `reasoning`: effort (default medium on the API side), summary, and the deprecated
 * generate_summary (same values; summary wins). https://platform.openai.com/docs/guides/reasoning
 */
function decodeReasoning(v: unknown, req: ChatRequest, note: EnumNote): void {
  if (absent(v)) return;
  const r = obj(v, 'reasoning');
  // An effort newer than polygate is read as the nearest level, a summary kind as `auto`: the
  // client asked for reasoning (and for a summary of it), and keeps both.
  const effort = absent(r.effort) ? undefined : openEnum(r.effort, efforts, 'reasoning.effort', note, nearestEffort);
  const summaryOf = (x: unknown, f: string) => openEnum(x, summaries, f, note, () => 'auto');
  const generate = absent(r.generate_summary) ? undefined : summaryOf(r.generate_summary, 'reasoning.generate_summary');
  const summary = absent(r.summary) ? generate : summaryOf(r.summary, 'reasoning.summary');
  if (effort === 'none') {
    // Off, said explicitly: OpenAI upstreams get the word back (their default may be to reason).
    req.reasoning = { enabled: false, effort };
    return;
  }
  const cfg: ReasoningConfig = { enabled: true };
  // The IR has every level (xhigh and max included); each encoder maps it to the nearest one its
  // upstream knows (adapters/shared/reasoning-map.ts nearestEffort).
  if (effort !== undefined) cfg.effort = effort;
  if (summary !== undefined) {
    cfg.summary = summary;
    cfg.includeThoughts = true;
  }
  req.reasoning = cfg;
}

/** Limits table: 16 pairs; keys up to 64 characters; values are strings up to 512 characters. */
function decodeMetadata(v: unknown): Record<string, string> | undefined {
  if (absent(v)) return undefined;
  const m = obj(v, 'metadata');
  const entries = Object.entries(m);
  if (entries.length > 16) {
    throw invalid(
      'metadata',
      `Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with ${entries.length} properties instead.`,
    );
  }
  const out: Record<string, string> = {};
  for (const [k, val] of entries) {
    if (k.length > 64)
      throw invalid(
        'metadata',
        `Invalid 'metadata': keys are at most 64 characters, but key '${k.slice(0, 16)}…' has ${k.length}.`,
      );
    if (typeof val !== 'string') throw invalid('metadata', `Invalid 'metadata': the value of '${k}' must be a string.`);
    if (val.length > 512)
      throw invalid(
        'metadata',
        `Invalid 'metadata': values are at most 512 characters, but the value of '${k}' has ${val.length}.`,
      );
    // Defined, not assigned: `out['__proto__'] = …` would set the prototype (and a string is ignored there), losing the key.
    Object.defineProperty(out, k, { value: val, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
