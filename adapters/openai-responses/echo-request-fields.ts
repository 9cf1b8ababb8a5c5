// The request fields a response object echoes, with the API's defaults filled in
// (https://platform.openai.com/docs/api-reference/responses/object): temperature 1, top_p 1,
// truncation 'disabled', tool_choice 'auto', parallel_tool_calls true, text {format: {type:
// 'text'}}, reasoning {effort: null, summary: null}, store true, metadata {}, tools with `strict`
// and hosted-tool defaults. Only requests decoded by this adapter reach here.
import type { ChatRequest, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { echoBuiltinTool, isBuiltinWireType } from './builtin-tools.ts';
import { encodeTextFormat, responsesToolChoice } from './encode-responses-tools.ts';
import { readEcho } from './responses-extensions.ts';
import type { ResponseObject } from './responses-wire-types.ts';

export type EchoedFields = Omit<
  ResponseObject,
  'id' | 'object' | 'created_at' | 'status' | 'error' | 'incomplete_details' | 'model' | 'output' | 'usage'
>;

export function echoRequestFields(req: ChatRequest): EchoedFields {
  const e = readEcho(req);
  // The format as an upstream is sent it: a name that passed decoding needs no mending.
  const text: EchoedFields['text'] = { format: req.output ? encodeTextFormat(req.output) : { type: 'text' } };
  if (e.verbosity !== undefined) text.verbosity = e.verbosity;
  const fields: EchoedFields = {
    instructions: e.instructions,
    max_output_tokens: req.maxTokens ?? null,
    parallel_tool_calls: req.parallelToolCalls ?? true,
    previous_response_id: e.previousResponseId,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? null },
    store: e.store,
    temperature: req.sampling.temperature ?? 1,
    text,
    tool_choice: echoToolChoice(req.toolChoice, req.tools),
    tools: req.tools.map(echoTool),
    top_p: req.sampling.topP ?? 1,
    truncation: e.truncation,
    user: req.user ?? null,
    metadata: req.metadata ?? {},
  };
  // "When the service_tier parameter is set, the response body will include the service_tier value
  // based on the processing mode actually used": polygate cannot know better than the request, and
  // 'auto' resolves to 'default' unless the project says otherwise.
  if (e.serviceTier !== undefined) fields.service_tier = e.serviceTier === 'auto' ? 'default' : e.serviceTier;
  return fields;
}

function echoTool(t: Tool): Record<string, unknown> {
  if (t.type === 'function') {
    return {
      type: 'function',
      description: t.description ?? null,
      name: t.name,
      parameters: t.parameters,
      strict: t.strict ?? true,
    };
  }
  return isBuiltinWireType(t.options.type) ? echoBuiltinTool(t.options) : { type: t.name ?? t.kind, ...t.options };
}

/** A decoded hosted tool's name is its Responses type (decode-responses-tools.ts), so it is echoed as is. */
function echoToolChoice(c: ToolChoice | undefined, tools: Tool[]): string | Record<string, unknown> {
  if (!c) return 'auto';
  return responsesToolChoice(c, (name) =>
    tools.some((t) => t.type === 'builtin' && t.name === name) ? name : undefined,
  );
}
