// IR ChatRequest → Chat Completions request body for an upstream
// (https://platform.openai.com/docs/api-reference/chat/create).
import type { ChatRequest, OutputFormat, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { GatewayError, invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { UpstreamHttpRequest, WarningSink } from '../shared/chat-adapter.ts';
import { isClientSideExtension } from '../shared/client-side-extensions.ts';
import { forcedBuiltinTool } from '../shared/forced-builtin-tool.ts';
import { dropForeignExtensions, ownExtensions } from '../shared/format-extensions.ts';
import { outputChangingExtension } from '../shared/output-changing-extensions.ts';
import { encodeOpenAIKnobs } from '../shared/openai-knobs.ts';
import { encodeServiceTier } from '../shared/service-tier.ts';
import { effortOfBudget, nearestEffort } from '../shared/reasoning-map.ts';
import { copySampling, type SamplingNames } from '../shared/sampling-names.ts';
import { encodeChatMessages } from './encode-chat-messages.ts';

const FORMAT = 'openai-chat';

/** The sampling knobs Chat Completions takes as they are (stop and top_k are checked in encodeSampling). */
const samplingNames: SamplingNames = [
  ['temperature', 'temperature'],
  ['topP', 'top_p'],
  ['seed', 'seed'],
  ['presencePenalty', 'presence_penalty'],
  ['frequencyPenalty', 'frequency_penalty'],
  ['candidateCount', 'n'],
  ['logprobs', 'logprobs'],
  ['topLogprobs', 'top_logprobs'],
];

/** Chat Completions accepts at most 4 stop sequences. */
const maxStop = 4;

/**
 * Chat Completions' own options (a same-format route) this encoder carries as they are. Other
 * formats' options are never read here (adapters/shared/format-extensions.ts).
 */
export const relayedExtensions = [
  'store',
  'logit_bias',
  'service_tier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'safety_identifier',
  'moderation',
  'verbosity',
  'prediction',
  'modalities',
  'audio',
  'web_search_options',
] as const;

export function encodeChatUpstreamRequest(
  req: ChatRequest,
  upstreamModel: string,
  warn: WarningSink,
): UpstreamHttpRequest {
  const body: Record<string, unknown> = { model: upstreamModel, messages: encodeChatMessages(req, warn) };
  const tools = req.tools.flatMap((t, n) => encodeTool(t, n, warn));
  if (tools.length > 0) body.tools = tools;
  const forced = forcedBuiltinTool(req.tools, req.toolChoice);
  if (forced)
    throw new GatewayError(
      'invalid-request',
      `tool_choice: the openai-chat upstream cannot run the built-in ${forced.kind} tool; route this model to a provider that has it`,
      { param: 'tool_choice' },
    );
  if (req.toolChoice) body.tool_choice = encodeToolChoice(req.toolChoice);
  if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  const format = req.output ? encodeOutput(req.output) : undefined;
  if (format) body.response_format = format;
  if (req.maxTokens !== undefined) body.max_completion_tokens = req.maxTokens;
  encodeSampling(req, warn, body);
  const effort = encodeReasoning(req, warn);
  if (effort) body.reasoning_effort = effort;
  if (req.user !== undefined) body.user = req.user;
  const tier = encodeServiceTier(req.serviceTier, FORMAT, 'service_tier', warn);
  if (tier !== undefined) body.service_tier = tier;
  if (req.verbosity !== undefined) body.verbosity = req.verbosity;
  encodeOpenAIKnobs(req, body);
  if (req.metadata && Object.keys(req.metadata).length > 0) {
    // OpenAI accepts `metadata` for stored completions only; a label, not a knob.
    if (ownExtensions(req, FORMAT).store === true) body.metadata = req.metadata;
    else warn('metadata', 'the openai-chat upstream keeps metadata only for stored completions; dropped');
  }
  relayExtensions(req, body, warn);
  if (req.stream) {
    body.stream = true;
    // Always ask for the usage chunk: without it a streamed answer has no token counts at all.
    body.stream_options = { include_usage: true };
  }
  return { path: '/chat/completions', body, headers: {} };
}

function encodeTool(t: Tool, n: number, warn: WarningSink): Array<Record<string, unknown>> {
  switch (t.type) {
    case 'function':
      return [
        {
          type: 'function',
          function: {
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
            parameters: t.parameters,
            ...(t.strict !== undefined ? { strict: t.strict } : {}),
          },
        },
      ];
    case 'builtin':
      // An offered tool the upstream cannot run is dropped with a warning (docs/open-world.md);
      // forcing it is refused in encodeToolChoice.
      warn(`tools.${n}`, `the openai-chat upstream cannot run the built-in ${t.kind} tool; dropped`);
      return [];
    default:
      return assertNever(t, 'tool');
  }
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice */
function encodeToolChoice(c: ToolChoice): unknown {
  switch (c.type) {
    case 'auto':
    case 'none':
    case 'required':
      return c.type;
    case 'tool':
      return { type: 'function', function: { name: c.name } };
    case 'allowed':
      return {
        type: 'allowed_tools',
        allowed_tools: { mode: c.mode, tools: c.names.map((name) => ({ type: 'function', function: { name } })) },
      };
    default:
      return assertNever(c, 'tool choice');
  }
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format */
function encodeOutput(o: OutputFormat): unknown {
  switch (o.type) {
    case 'text':
      return undefined;
    case 'json':
      return { type: 'json_object' };
    case 'json-schema':
      return {
        type: 'json_schema',
        json_schema: {
          name: o.name,
          schema: o.schema,
          ...(o.strict !== undefined ? { strict: o.strict } : {}),
          ...(o.description !== undefined ? { description: o.description } : {}),
        },
      };
    default:
      return assertNever(o, 'output format');
  }
}

/** The sampling knobs, onto the body in the table's order, `stop` after them. */
function encodeSampling(req: ChatRequest, warn: WarningSink, out: Record<string, unknown>): void {
  const s = req.sampling;
  copySampling(s, samplingNames, out);
  if (s.stop && s.stop.length > 0) {
    // Stop sequences change the answer, so more than the upstream takes is an error, not a drop.
    if (s.stop.length > maxStop)
      throw invalid(
        'stop',
        `stop: the openai-chat upstream accepts at most ${maxStop} stop sequences, got ${s.stop.length}`,
      );
    out.stop = s.stop;
  }
  if (s.topK !== undefined) warn('top_k', 'Chat Completions has no top_k; dropped');
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort */
function encodeReasoning(req: ChatRequest, warn: WarningSink): string | undefined {
  const r = req.reasoning;
  if (!r) return undefined;
  // Reasoning turned off by name ('none') is sent as such; other formats' "off" is the default.
  if (!r.enabled) return r.effort === 'none' ? 'none' : undefined;
  if (r.includeThoughts)
    warn('reasoning.include_thoughts', 'Chat Completions does not return reasoning text; only the answer comes back');
  // Anthropic's `max` (and adaptive thinking's effort) become the nearest level Chat Completions has.
  if (r.effort) return nearestEffort(r.effort, ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const);
  if (r.budgetTokens !== undefined) return effortOfBudget(r.budgetTokens);
  return undefined;
}

/** Every option is carried, or named in a warning: never dropped silently (docs/architecture.md "Cross-format data"). */
function relayExtensions(req: ChatRequest, body: Record<string, unknown>, warn: WarningSink): void {
  dropForeignExtensions(req, FORMAT, warn);
  const own = req.extensions[FORMAT];
  // Most requests carry none of Chat Completions' own options: no entries to build.
  if (!own) return;
  for (const [key, value] of Object.entries(own)) {
    if (isClientSideExtension(FORMAT, key) || value === undefined) continue;
    if ((relayedExtensions as readonly string[]).includes(key)) body[key] = value;
    else {
      const rejected = outputChangingExtension(key, value, 'openai-chat');
      if (rejected) throw rejected;
      warn(key, 'the openai-chat upstream has no such field; dropped');
    }
  }
}
