// IR ChatRequest → a Responses API request for an OpenAI Responses upstream
// (https://platform.openai.com/docs/api-reference/responses/create). `store` is always false:
// polygate keeps conversation state itself, so reasoning is requested with its encrypted content
// to be replayable. Fields the Responses API cannot carry are rejected (400 naming the field and
// the provider) when they change the output, or dropped with a warning when they are tuning knobs.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import type { UpstreamHttpRequest, WarningSink } from '../shared/chat-adapter.ts';
import { hasCacheHints } from '../shared/cache-hints.ts';
import { isClientSideExtension } from '../shared/client-side-extensions.ts';
import { dropForeignExtensions } from '../shared/format-extensions.ts';
import { outputChangingExtension } from '../shared/output-changing-extensions.ts';
import { encodeOpenAIKnobs } from '../shared/openai-knobs.ts';
import { encodeServiceTier } from '../shared/service-tier.ts';
import type { Json } from '../shared/narrow.ts';
import { effortOfBudget, nearestEffort } from '../shared/reasoning-map.ts';
import { copySampling, type SamplingNames } from '../shared/sampling-names.ts';
import { encodeInputItems } from './encode-input-items.ts';
import { encodeTextFormat, encodeToolChoice, encodeTools } from './encode-responses-tools.ts';
import { ext, readEcho, responsesOptions } from './responses-extensions.ts';

const provider = 'the openai-responses upstream';

const FORMAT = 'openai-responses';
/** Responses' own options (a same-format route) relayed as they are; other formats' are never read here. */
const relayed = [
  'truncation',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'max_tool_calls',
  'prompt',
] as const;
/** Own options this encoder consumes in other ways, or that concern only the client side. */
const consumed = new Set<string>([ext.store, ext.verbosity, 'stream_options', 'top_logprobs']);

export function encodeResponsesRequest(
  req: ChatRequest,
  upstreamModel: string,
  warn: WarningSink,
): UpstreamHttpRequest {
  rejectUnresolvedState(req);
  const input = encodeInputItems(req.messages, warn);
  const body: Json = { model: upstreamModel, input: input.items };
  if (hasCacheHints(req))
    warn(
      'cache_control',
      `prompt-cache hints are not supported by ${provider} (OpenAI caches prompts automatically); dropped`,
    );
  const own = responsesOptions(req);
  const include = new Set<string>(readEcho(req).include);

  let instructions = req.system.map((p) => p.text).join('\n\n');
  // json_object mode needs the word "JSON" somewhere in the input, or OpenAI answers 400.
  if (req.output?.type === 'json' && !/json/i.test(instructions + JSON.stringify(input.items))) {
    instructions = `${instructions}${instructions ? '\n\n' : ''}Respond with a JSON object.`;
  }
  if (instructions) body.instructions = instructions;
  if (req.tools.length > 0) body.tools = encodeTools(req.tools, warn);
  if (req.toolChoice) body.tool_choice = encodeToolChoice(req.toolChoice, req.tools);
  if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  const text: Json = {};
  if (req.output) text.format = encodeTextFormat(req.output);
  const verbosity = req.verbosity ?? own[ext.verbosity];
  if (typeof verbosity === 'string') text.verbosity = verbosity;
  if (Object.keys(text).length > 0) body.text = text;
  if (req.maxTokens !== undefined) body.max_output_tokens = req.maxTokens;
  encodeSampling(req, body, warn);
  if (encodeReasoning(req, body) || input.replaysEncryptedReasoning) include.add('reasoning.encrypted_content');
  if (req.user !== undefined) body.user = req.user;
  if (req.metadata !== undefined) body.metadata = req.metadata;
  const tier = encodeServiceTier(req.serviceTier, FORMAT, 'service_tier', warn);
  if (tier !== undefined) body.service_tier = tier;
  encodeOpenAIKnobs(req, body);
  dropForeignExtensions(req, FORMAT, warn);
  for (const key of relayed) if (own[key] !== undefined) body[key] = own[key];
  for (const key of Object.keys(own)) {
    if (!consumed.has(key) && !(relayed as readonly string[]).includes(key) && !isClientSideExtension(FORMAT, key)) {
      const rejected = outputChangingExtension(key, own[key], FORMAT);
      if (rejected) throw rejected;
      warn(key, `not supported by ${provider}; dropped`);
    }
  }
  if (include.size > 0) body.include = [...include];
  body.store = false;
  body.stream = req.stream;
  return { path: '/responses', body, headers: {} };
}

/**
 * previous_response_id and item_reference are resolved by the pipeline from polygate's own store
 * (the upstream keeps nothing: store is false). Once resolved, the pipeline removes these keys;
 * if they are still here, sending them on would silently lose the conversation.
 */
function rejectUnresolvedState(req: ChatRequest): void {
  const e = responsesOptions(req);
  if (e[ext.previousResponseId] !== undefined) {
    throw invalid(
      'previous_response_id',
      `previous_response_id: the stored conversation could not be resolved for ${provider}`,
    );
  }
  const refs = e[ext.itemReferences];
  if (Array.isArray(refs) && refs.length > 0) {
    throw invalid('input', `input: item_reference items could not be resolved for ${provider}`);
  }
  if (e.background === true)
    throw invalid('background', `background: background responses are not supported through polygate (${provider})`);
  if (e.conversation !== undefined)
    throw invalid(
      'conversation',
      `conversation: polygate keeps conversation state itself; use previous_response_id (${provider})`,
    );
}

/** The only sampling knobs the Responses API takes; the others are refused or warned in encodeSampling. */
const samplingNames: SamplingNames = [
  ['temperature', 'temperature'],
  ['topP', 'top_p'],
];

function encodeSampling(req: ChatRequest, body: Json, warn: WarningSink): void {
  const s = req.sampling;
  copySampling(s, samplingNames, body);
  // Stop sequences change what the model returns: never dropped.
  if (s.stop !== undefined && s.stop.length > 0)
    throw invalid('stop', `stop: stop sequences are not supported by ${provider}`);
  if (s.candidateCount !== undefined && s.candidateCount > 1) {
    throw invalid('candidateCount', `candidateCount: ${provider} returns a single candidate (got ${s.candidateCount})`);
  }
  if (s.topK !== undefined) warn('top_k', `not supported by ${provider}; dropped`);
  if (s.seed !== undefined) warn('seed', `not supported by ${provider}; dropped`);
  if (s.presencePenalty !== undefined) warn('presence_penalty', `not supported by ${provider}; dropped`);
  if (s.frequencyPenalty !== undefined) warn('frequency_penalty', `not supported by ${provider}; dropped`);
  if (s.logprobs || s.topLogprobs !== undefined)
    warn('logprobs', `log probabilities are not carried back from ${provider}; dropped`);
}

/** reasoning {effort, summary}; true when reasoning is on (its encrypted content is then requested). */
function encodeReasoning(req: ChatRequest, body: Json): boolean {
  const r = req.reasoning;
  if (!r) return false;
  if (!r.enabled) {
    // Only an explicit 'none' is sent; other formats' "thinking off" is the default anyway.
    if (r.effort === 'none') body.reasoning = { effort: 'none' };
    return false;
  }
  const reasoning: Json = {};
  // Anthropic's `max` (and adaptive thinking's effort) become the nearest level Responses has.
  const effort =
    (r.effort ? nearestEffort(r.effort, ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const) : undefined) ??
    (r.budgetTokens !== undefined ? effortOfBudget(r.budgetTokens) : undefined);
  if (effort !== undefined) reasoning.effort = effort;
  const summary = r.summary ?? (r.includeThoughts ? 'auto' : undefined);
  if (summary !== undefined) reasoning.summary = summary;
  body.reasoning = reasoning;
  return true;
}
