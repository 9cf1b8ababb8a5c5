// Client request -> IR, validating every rule of the spec's Messages tables and Limits table
// (https://docs.anthropic.com/en/api/messages for the fields the spec leaves out). Each failure
// is a 400 whose `param` and message name the field as the client spelled it. What the spec does
// not name is not an error (docs/open-world.md): it is kept in `extensions` or, where the IR
// has no place for it, reported in `unmapped`; this decoder runs only for translated routes.
import type {
  ChatRequest,
  Message,
  OutputFormat,
  Part,
  ReasoningConfig,
  ReasoningEffort,
  SamplingKnobs,
  TextPart,
  Unmapped,
} from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import type { InboundContext, WireHeaders } from '../shared/chat-adapter.ts';
import { decodeServiceTier } from '../shared/service-tier.ts';
import { arr, int, isObject, num, obj, oneOf, optBool, optStr, str, type Json } from '../shared/narrow.ts';
import { nearestEffort, noteUnmapped, openEnum } from '../shared/open-enum.ts';
import { decodeContent, decodeTextBlock, type UnmappedSink } from './decode-messages-content.ts';
import { checkVersion, header } from './messages-version.ts';
import { decodeToolChoice, decodeTools } from './decode-messages-tools.ts';

/** Top-level fields decoded here; any other key travels in `extensions` by its wire name. */
const modelled = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_k',
  'top_p',
  'thinking',
  'tool_choice',
  'tools',
  'output_config',
  'output_format',
]);

const noBetas: string[] = [];

/** `anthropic-beta` may be a comma-separated list and may repeat. */
function betas(headers: WireHeaders): string[] {
  if (headers['anthropic-beta'] === undefined) return noBetas;
  return header(headers, 'anthropic-beta')
    .flatMap((h) => h.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** temperature and top_p: 0 to 1, both ends included, as the real API accepts them (docs/architecture.md). */
function unit(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const x = num(v, field);
  if (!(x >= 0 && x <= 1)) throw invalid(field, `${field}: must be between 0 and 1 (got ${x})`);
  return x;
}

/** System text: a block of a type newer than polygate is left out, warned. */
function decodeTextBlocks(v: unknown, field: string, note: UnmappedSink): TextPart[] {
  if (typeof v === 'string') return v === '' ? [] : [{ type: 'text', text: v }];
  return arr(v, field).flatMap((item, i) => {
    const b = obj(item, `${field}.${i}`);
    return openEnum(b.type, ['text'] as const, `${field}.${i}.type`, noteUnmapped(note))
      ? [decodeTextBlock(b, `${field}.${i}`, note)]
      : [];
  });
}

function decodeSystem(v: unknown, note: UnmappedSink): TextPart[] {
  if (v === undefined || v === null) return [];
  return decodeTextBlocks(v, 'system', note);
}

const roles = ['user', 'assistant', 'system'] as const;

function decodeMessages(v: unknown, note: UnmappedSink): Message[] {
  if (v === undefined) throw invalid('messages', 'messages: field required');
  const list = arr(v, 'messages');
  if (list.length === 0) throw invalid('messages', 'messages: at least one message is required');
  const out: Message[] = [];
  // A loop, not forEach with a callback: every translated Messages request passes here.
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    // Field paths are built when a check needs one: most messages pass every check.
    const m = isObject(item) ? item : obj(item, `messages.${i}`);
    // A role newer than polygate (as `system` was, behind a beta) has no meaning to map to: the
    // message is left out, warned.
    const role =
      m.role === 'user' || m.role === 'assistant'
        ? m.role
        : openEnum(m.role, roles, `messages.${i}.role`, noteUnmapped(note));
    if (role === undefined) continue;
    if (m.content === undefined) throw invalid(`messages.${i}.content`, `messages.${i}.content: field required`);
    // A mid-conversation instruction (SystemMessageParam in node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts): text only, its own message.
    if (role === 'system') {
      const parts = decodeTextBlocks(m.content, `messages.${i}.content`, note);
      if (parts.length === 0)
        throw invalid(`messages.${i}.content`, `messages.${i}.content: a system message must have non-empty content`);
      out.push({ role, parts });
      continue;
    }
    // A final assistant message is continued by the response (prefill), so it may be empty.
    // Plain text (what decodeContent makes of a non-empty string) without building its field path.
    const parts: Part[] =
      typeof m.content === 'string' && m.content.length > 0
        ? [{ type: 'text', text: m.content }]
        : decodeContent(m.content, `messages.${i}.content`, role, role === 'assistant' && i === list.length - 1, note);
    // Consecutive same-role messages are one turn (spec, Messages `messages`).
    const last = out.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  }
  if (out.length === 0) throw invalid('messages', 'messages: no message polygate can read (see x-polygate-warnings)');
  return out;
}

/** `output_config.effort` levels (OutputConfig in node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts). */
const efforts = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
/** `thinking.display` modes; every one but `omitted` shows the thinking. */
const displays = ['summarized', 'omitted', 'updates'] as const;

/**
 * `thinking` (enabled with a budget, disabled, adaptive) together with `output_config.effort`.
 * A thinking type the spec does not name is thinking the model manages itself: read as adaptive
 * and reported.
 */
function decodeThinking(
  v: unknown,
  effort: ReasoningEffort | undefined,
  maxTokens: number,
  note: UnmappedSink,
): ReasoningConfig | undefined {
  const withEffort = effort !== undefined ? { effort } : {};
  if (v === undefined || v === null) return effort !== undefined ? { enabled: true, ...withEffort } : undefined;
  const t = obj(v, 'thinking');
  const type = str(t.type, 'thinking.type');
  // `updates` (beta thinking-display-updates-2026-08-18, Claude Code 2.1.332) shows thinking as it
  // goes; any other display newer than polygate is read as showing it too: the client asked for
  // thinking, and showing it is what every display mode but `omitted` does.
  const display =
    t.display === undefined || t.display === null
      ? undefined
      : openEnum(t.display, displays, 'thinking.display', noteUnmapped(note), () => 'summarized');
  const includeThoughts = display !== 'omitted';
  switch (type) {
    case 'disabled':
      return { enabled: false, ...withEffort };
    case 'enabled': {
      if (t.budget_tokens === undefined)
        throw invalid('thinking.budget_tokens', 'thinking.budget_tokens: field required');
      const budget = int(t.budget_tokens, 'thinking.budget_tokens');
      if (budget < 1024)
        throw invalid('thinking.budget_tokens', `thinking.budget_tokens: must be at least 1024 (got ${budget})`);
      if (budget >= maxTokens)
        throw invalid(
          'thinking.budget_tokens',
          `thinking.budget_tokens: must be below max_tokens (${budget} >= ${maxTokens})`,
        );
      return { enabled: true, budgetTokens: budget, includeThoughts, ...withEffort };
    }
    case 'adaptive':
      return { enabled: true, adaptive: true, includeThoughts, ...withEffort };
    default:
      note({
        field: 'thinking.type',
        message: `thinking type '${type}' has no translation; sent as adaptive thinking`,
      });
      return { enabled: true, adaptive: true, includeThoughts, ...withEffort };
  }
}

/** Structured outputs: `output_config.format` (and the beta-era top-level `output_format`). */
function decodeFormat(v: unknown, field: string): OutputFormat | undefined {
  if (v === undefined || v === null) return undefined;
  const f = obj(v, field);
  oneOf(f.type, ['json_schema'], `${field}.type`);
  if (f.schema === undefined) throw invalid(`${field}.schema`, `${field}.schema: field required`);
  return { type: 'json-schema', name: 'response', schema: obj(f.schema, `${field}.schema`) };
}

function decodeMetadata(v: unknown, note: UnmappedSink): string | undefined {
  if (v === undefined || v === null) return undefined;
  const m = obj(v, 'metadata');
  for (const key of Object.keys(m))
    if (key !== 'user_id')
      note({ field: `metadata.${key}`, message: 'this metadata field cannot be translated; dropped' });
  const user = optStr(m.user_id, 'metadata.user_id');
  if (user !== undefined && user.length > 256)
    throw invalid('metadata.user_id', `metadata.user_id: must be at most 256 characters (got ${user.length})`);
  return user;
}

function decodeSampling(b: Json): SamplingKnobs {
  const s: SamplingKnobs = {};
  const temperature = unit(b.temperature, 'temperature');
  if (temperature !== undefined) s.temperature = temperature;
  const topP = unit(b.top_p, 'top_p');
  if (topP !== undefined) s.topP = topP;
  if (b.top_k !== undefined && b.top_k !== null) {
    const k = int(b.top_k, 'top_k');
    if (k <= 0) throw invalid('top_k', `top_k: must be greater than 0 (got ${k})`);
    s.topK = k;
  }
  if (b.stop_sequences !== undefined && b.stop_sequences !== null) {
    s.stop = arr(b.stop_sequences, 'stop_sequences').map((x, i) => str(x, `stop_sequences.${i}`));
  }
  return s;
}

export function decodeMessagesRequest(body: unknown, ctx: InboundContext): ChatRequest {
  checkVersion(ctx.headers);
  if (!isObject(body)) throw invalid('body', 'request body: expected a JSON object');
  const b = body;

  if (b.model === undefined) throw invalid('model', 'model: field required');
  const model = str(b.model, 'model');
  if (model.length < 1) throw invalid('model', 'model: must be 1 to 256 characters (got 0)');
  checkModelName(model);

  if (b.max_tokens === undefined) throw invalid('max_tokens', 'max_tokens: field required');
  const maxTokens = int(b.max_tokens, 'max_tokens');
  if (maxTokens <= 1) throw invalid('max_tokens', `max_tokens: must be greater than 1 (got ${maxTokens})`);

  const unmapped: Unmapped[] = [];
  const note: UnmappedSink = (u) => unmapped.push(u);
  const messages = decodeMessages(b.messages, note);
  const system = decodeSystem(b.system, note);
  const tools = decodeTools(b.tools, note);
  const { toolChoice, parallelToolCalls } = decodeToolChoice(b.tool_choice, note);
  const user = decodeMetadata(b.metadata, note);
  const stream = optBool(b.stream, 'stream') ?? false;

  // Anthropic's own options, in its namespace (adapters/shared/format-extensions.ts).
  const extensions: Record<string, unknown> = {};
  // The body's own keys in their order (Object.keys' own), with no array of them built.
  for (const key in b) if (Object.hasOwn(b, key) && !modelled.has(key)) extensions[key] = b[key];
  // The tier is shared with OpenAI and Gemini; a word newer than polygate stays Anthropic's.
  const serviceTier = decodeServiceTier('anthropic-messages', extensions.service_tier);
  if (serviceTier !== undefined) delete extensions.service_tier;
  let output = decodeFormat(b.output_format, 'output_format');
  let effort: ReasoningEffort | undefined;
  if (b.output_config !== undefined && b.output_config !== null) {
    const { format, effort: wireEffort, ...rest } = obj(b.output_config, 'output_config');
    output = decodeFormat(format, 'output_config.format') ?? output;
    // A level newer than polygate is read as the nearest it knows (adapters/shared/open-enum.ts).
    if (wireEffort !== undefined && wireEffort !== null)
      effort = openEnum<ReasoningEffort>(
        wireEffort,
        efforts,
        'output_config.effort',
        noteUnmapped(note),
        nearestEffort,
      );
    // Other output_config settings are Anthropic's own: kept for the upstream to decide.
    if (Object.keys(rest).length > 0) extensions.output_config = rest;
  }
  const reasoning = decodeThinking(b.thinking, effort, maxTokens, note);
  const beta = betas(ctx.headers);
  if (beta.length > 0) extensions['anthropic-beta'] = beta;

  // An absent field spreads `false` (nothing, no object built): most requests leave most of them out.
  return {
    model,
    system,
    messages,
    tools,
    ...(toolChoice && { toolChoice }),
    ...(parallelToolCalls !== undefined && { parallelToolCalls }),
    ...(output && { output }),
    maxTokens,
    sampling: decodeSampling(b),
    ...(reasoning && { reasoning }),
    ...(user !== undefined && { user }),
    ...(serviceTier !== undefined && { serviceTier }),
    stream,
    ...(unmapped.length > 0 && { unmapped }),
    extensions: Object.keys(extensions).length > 0 ? { 'anthropic-messages': extensions } : {},
  };
}
