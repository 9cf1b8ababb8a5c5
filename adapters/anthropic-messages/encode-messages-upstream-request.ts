// IR request -> a Messages API call (https://docs.anthropic.com/en/api/messages). Fields the
// Messages API cannot carry are emulated, rejected with a 400 naming field and provider, or (pure
// tuning knobs only) dropped with a warning (README, "Families served").
import type { ChatRequest, SamplingKnobs } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import type { UpstreamHttpRequest, WarningSink } from '../shared/chat-adapter.ts';
import { isClientSideExtension } from '../shared/client-side-extensions.ts';
import { dropForeignExtensions, ownExtensions } from '../shared/format-extensions.ts';
import { outputChangingExtension } from '../shared/output-changing-extensions.ts';
import { dropOpenAIKnobs } from '../shared/openai-knobs.ts';
import { encodeServiceTier } from '../shared/service-tier.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { budgetOfEffort, nearestEffort } from '../shared/reasoning-map.ts';
import { encodeMessages, encodeSystem } from './encode-messages-upstream-content.ts';
import { encodeToolChoice, encodeTools } from './encode-messages-upstream-tools.ts';

const FORMAT = 'anthropic-messages';
export const ANTHROPIC_VERSION = '2023-06-01';
/** Messages requires max_tokens; this is what is asked for when the client set no limit. */
export const DEFAULT_MAX_TOKENS = 4096;
const MIN_BUDGET = 1024;

/** Request fields that are Anthropic's own, carried by wire name from an Anthropic client. */
const nativeExtensions = new Set([
  'container',
  'mcp_servers',
  'context_management',
  'inference_geo',
  'speed',
  'cache_control',
  'diagnostics',
  'user_profile_id',
]);

/** `output_config.effort` levels (node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts, OutputConfig). */
const anthropicEfforts = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
/** The beta that lets `messages` hold `role: system` messages after the first turn. */
const midConversationSystemBeta = 'mid-conversation-system-';

export type Thinking = { thinking?: Json; maxTokens: number; effort?: string };

/** Claude's `thinking` setting for a request, the max_tokens it needs, and the effort (Bedrock Converse reuses it). */
export function thinkingOf(req: ChatRequest, warn: WarningSink): Thinking {
  const r = req.reasoning;
  if (!r) return { maxTokens: req.maxTokens ?? DEFAULT_MAX_TOKENS };
  if (!r.enabled) return { thinking: { type: 'disabled' }, maxTokens: req.maxTokens ?? DEFAULT_MAX_TOKENS };
  // The model decides how long to think; the effort, if any, is its own setting (output_config).
  if (r.adaptive && r.budgetTokens === undefined) {
    return {
      thinking: { type: 'adaptive', ...(r.includeThoughts === false ? { display: 'omitted' } : {}) },
      maxTokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...(r.effort !== undefined && r.effort !== 'none' ? { effort: nearestEffort(r.effort, anthropicEfforts) } : {}),
    };
  }
  let budget = Math.max(MIN_BUDGET, r.budgetTokens ?? budgetOfEffort[r.effort ?? 'medium']);
  // The budget counts toward max_tokens and must stay below it.
  if (req.maxTokens === undefined)
    return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: budget + DEFAULT_MAX_TOKENS };
  if (req.maxTokens <= budget) {
    if (req.maxTokens - 1 < MIN_BUDGET) {
      warn(
        'reasoning',
        `max_tokens ${req.maxTokens} leaves no room for ${FORMAT}'s minimum thinking budget of ${MIN_BUDGET}; thinking disabled`,
      );
      return { maxTokens: req.maxTokens };
    }
    warn('reasoning.budget_tokens', `lowered from ${budget} to ${req.maxTokens - 1} to stay below max_tokens`);
    budget = req.maxTokens - 1;
  }
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: req.maxTokens };
}

function sampling(s: SamplingKnobs, thinking: boolean, warn: WarningSink): Json {
  const out: Json = {};
  if (s.temperature !== undefined) {
    if (s.temperature > 1 || s.temperature < 0)
      throw invalid('temperature', `temperature ${s.temperature} is outside the range 0 to 1 that ${FORMAT} accepts`);
    // With extended thinking Anthropic accepts only the default temperature and no top_k
    // (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#feature-compatibility).
    if (thinking && s.temperature !== 1)
      warn('temperature', `not supported by ${FORMAT} with thinking enabled; dropped`);
    else out.temperature = s.temperature;
  }
  if (s.topP !== undefined) {
    if (thinking && s.topP < 0.95) warn('top_p', `${FORMAT} accepts only 0.95 to 1 with thinking enabled; dropped`);
    else out.top_p = s.topP;
  }
  if (s.topK !== undefined) {
    if (thinking) warn('top_k', `not supported by ${FORMAT} with thinking enabled; dropped`);
    else out.top_k = s.topK;
  }
  if (s.stop !== undefined && s.stop.length > 0) out.stop_sequences = s.stop;
  if (s.candidateCount !== undefined && s.candidateCount > 1)
    throw invalid(
      'candidate_count',
      `${FORMAT} returns one candidate; candidate_count ${s.candidateCount} cannot be served`,
    );
  const dropped: Array<[keyof SamplingKnobs, string]> = [
    ['seed', 'seed'],
    ['presencePenalty', 'presence_penalty'],
    ['frequencyPenalty', 'frequency_penalty'],
    ['logprobs', 'logprobs'],
    ['topLogprobs', 'top_logprobs'],
  ];
  for (const [key, wire] of dropped)
    if (s[key] !== undefined && s[key] !== false) warn(wire, `not supported by ${FORMAT}; dropped`);
  return out;
}

/** Anthropic's own options (a same-format route); every other format's are dropped with a warning. */
function ownOptionsOf(req: ChatRequest, warn: WarningSink): { body: Json; outputConfig: Json; betas: string[] } {
  const body: Json = {};
  let outputConfig: Json = {};
  let betas: string[] = [];
  dropForeignExtensions(req, FORMAT, warn);
  const tier = encodeServiceTier(req.serviceTier, FORMAT, 'service_tier', warn);
  if (tier !== undefined) body.service_tier = tier;
  if (req.verbosity !== undefined) warn('verbosity', `not supported by ${FORMAT}; dropped`);
  dropOpenAIKnobs(req, FORMAT, warn);
  for (const [key, value] of Object.entries(ownExtensions(req, FORMAT))) {
    if (isClientSideExtension(FORMAT, key)) continue;
    if (key === 'anthropic-beta' && Array.isArray(value))
      betas = value.filter((v): v is string => typeof v === 'string');
    else if (key === 'output_config' && isObject(value)) outputConfig = { ...value };
    // A tier word newer than polygate: the Anthropic upstream may know it.
    else if (key === 'service_tier' || nativeExtensions.has(key)) body[key] = value;
    else {
      const rejected = outputChangingExtension(key, value, FORMAT);
      if (rejected) throw rejected;
      warn(key, `not supported by ${FORMAT}; dropped`);
    }
  }
  return { body, outputConfig, betas };
}

export function encodeMessagesUpstreamRequest(
  req: ChatRequest,
  upstreamModel: string,
  warn: WarningSink,
): UpstreamHttpRequest {
  const { thinking, maxTokens, effort } = thinkingOf(req, warn);
  const system = encodeSystem(req.system, req.output);
  const { tools: offered, toolChoice } = encodeToolChoice(req.tools, req.toolChoice, req.parallelToolCalls);
  const tools = encodeTools(req.tools, warn).filter((_, i) => offered.includes(req.tools[i]));
  const ext = ownOptionsOf(req, warn);
  const outputConfig: Json = { ...ext.outputConfig, ...(effort !== undefined ? { effort } : {}) };
  if (req.output?.type === 'json-schema') outputConfig.format = { type: 'json_schema', schema: req.output.schema };

  const metadata: Json = req.user !== undefined ? { user_id: req.user } : {};
  if (req.metadata && Object.keys(req.metadata).length > 0)
    warn('metadata', `${FORMAT} keeps only an end-user id; other metadata dropped`);

  const body: Json = {
    model: upstreamModel,
    max_tokens: maxTokens,
    ...(system.length > 0 ? { system } : {}),
    // Kept as messages only where the client's own betas say the model takes them.
    messages: encodeMessages(
      req.messages,
      warn,
      ext.betas.some((b) => b.startsWith(midConversationSystemBeta)),
    ),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(thinking ? { thinking } : {}),
    ...sampling(req.sampling, thinking?.type === 'enabled' || thinking?.type === 'adaptive', warn),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(Object.keys(outputConfig).length > 0 ? { output_config: outputConfig } : {}),
    ...ext.body,
    ...(req.stream ? { stream: true } : {}),
  };
  const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
  if (ext.betas.length > 0) headers['anthropic-beta'] = ext.betas.join(',');
  return { path: '/v1/messages', body, headers };
}
