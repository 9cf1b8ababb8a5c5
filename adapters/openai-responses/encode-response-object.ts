// IR ChatResult → the Responses API response object
// (https://platform.openai.com/docs/api-reference/responses/object). `output_text` is an SDK
// convenience the SDKs compute themselves, so it is not sent.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { ChatFinish, ChatResult, Usage } from '../../src/ir/chat-result.ts';
import { echoRequestFields } from './echo-request-fields.ts';
import { encodeOutputItems } from './encode-output-items.ts';
import { readToolIdentities } from './tool-identities.ts';
import type { IdSource } from './responses-ids.ts';
import { readEcho } from './responses-extensions.ts';
import type {
  IncompleteDetails,
  OutputItem,
  ResponseErrorObject,
  ResponseObject,
  ResponseStatus,
  ResponseUsage,
} from './responses-wire-types.ts';

export function encodeUsage(u: Usage): ResponseUsage {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

export type Outcome = {
  status: ResponseStatus;
  incomplete: IncompleteDetails | null;
  error: ResponseErrorObject | null;
};

/** A finish → status: length and content-filter make the response `incomplete` with the reason. */
export function outcomeOf(finish: ChatFinish): Outcome {
  switch (finish.reason) {
    case 'length':
      return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' }, error: null };
    // Anthropic's `refusal` stop reason is its safety classifiers stopping the answer: a content filter.
    case 'content-filter':
    case 'refusal':
      return { status: 'incomplete', incomplete: { reason: 'content_filter' }, error: null };
    case 'error':
      return {
        status: 'failed',
        incomplete: null,
        error: { code: 'server_error', message: 'The model failed to generate a response.' },
      };
    default:
      return { status: 'completed', incomplete: null, error: null };
  }
}

/** Keeps an upstream Responses id (so stored state lines up), otherwise mints `resp_…`. */
export const responseIdOf = (upstreamId: string | undefined, ids: IdSource): string =>
  upstreamId !== undefined && /^resp_[A-Za-z0-9_-]+$/.test(upstreamId) ? upstreamId : ids.newId('resp');

export type EnvelopeState = {
  id: string;
  createdAt: number;
  outcome: Outcome | 'in_progress';
  output: OutputItem[];
  usage: Usage | null;
};

/** The response object around a given state, every field in the API's order, read from the echoed fields (no rest copy of them). */
export function responseEnvelope(request: ChatRequest, s: EnvelopeState): ResponseObject {
  const echo = echoRequestFields(request);
  const o: Outcome = s.outcome === 'in_progress' ? inProgress : s.outcome;
  return {
    id: s.id,
    object: 'response',
    created_at: s.createdAt,
    status: o.status,
    error: o.error,
    incomplete_details: o.incomplete,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: request.model,
    output: s.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    reasoning: echo.reasoning,
    ...(echo.service_tier !== undefined ? { service_tier: echo.service_tier } : {}),
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: echo.truncation,
    usage: s.usage ? encodeUsage(s.usage) : null,
    user: echo.user,
    metadata: echo.metadata,
  };
}

const inProgress: Outcome = { status: 'in_progress', incomplete: null, error: null };

export function encodeResponseObject(result: ChatResult, request: ChatRequest, ids: IdSource): ResponseObject {
  const includeEncrypted = readEcho(request).include.includes('reasoning.encrypted_content');
  return responseEnvelope(request, {
    id: responseIdOf(result.id, ids),
    createdAt: ids.now(),
    outcome: outcomeOf(result.finish),
    output: encodeOutputItems(result.parts, { ids, includeEncrypted, toolIdentities: readToolIdentities(request) }),
    usage: result.usage,
  });
}
