// The request fields a response object echoes, with the API's defaults filled in
// (https://platform.openai.com/docs/api-reference/responses/object): temperature 1, top_p 1,
// truncation 'disabled', tool_choice 'auto', parallel_tool_calls true, text {format: {type:
// 'text'}}, reasoning {effort: null, summary: null}, store true, metadata {}, tools with `strict`
// and hosted-tool defaults. Only requests decoded by this adapter reach here.
import type { ChatRequest, OutputFormat, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { echoBuiltinTool, isBuiltinWireType } from './builtin-tools.ts';
import { readEcho } from './responses-extensions.ts';
import type { ResponseObject } from './responses-wire-types.ts';

export type EchoedFields = Omit<
  ResponseObject,
  'id' | 'object' | 'created_at' | 'status' | 'error' | 'incomplete_details' | 'model' | 'output' | 'usage'
>;

export function echoRequestFields(req: ChatRequest): EchoedFields {
  const e = readEcho(req);
  const text: EchoedFields['text'] = { format: echoFormat(req.output) };
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

export function echoFormat(f: OutputFormat | undefined): Record<string, unknown> {
  if (!f) return { type: 'text' };
  switch (f.type) {
    case 'text':
      return { type: 'text' };
    case 'json':
      return { type: 'json_object' };
    case 'json-schema': {
      const out: Record<string, unknown> = { type: 'json_schema', name: f.name, schema: f.schema };
      if (f.description !== undefined) out.description = f.description;
      out.strict = f.strict ?? false;
      return out;
    }
    default:
      return assertNever(f, 'output format');
  }
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

function echoToolChoice(c: ToolChoice | undefined, tools: Tool[]): string | Record<string, unknown> {
  if (!c) return 'auto';
  switch (c.type) {
    case 'auto':
    case 'none':
    case 'required':
      return c.type;
    case 'tool': {
      const hosted = tools.find((t) => t.type === 'builtin' && t.name === c.name);
      return hosted ? { type: c.name } : { type: 'function', name: c.name };
    }
    case 'allowed':
      return { type: 'allowed_tools', mode: c.mode, tools: c.names.map((name) => ({ type: 'function', name })) };
    default:
      return assertNever(c, 'tool choice');
  }
}
