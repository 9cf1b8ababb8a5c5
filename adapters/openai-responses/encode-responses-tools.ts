// IR tools, tool choice and output format → Responses `tools`, `tool_choice`, `text.format`
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools).
// Hosted tools that came from a Responses client are relayed as sent (their `options`); hosted
// tools of other formats map onto the Responses tool of the same kind where one exists.
import type { BuiltinTool, OutputFormat, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { WarningSink } from '../shared/chat-adapter.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { builtinKinds, isBuiltinWireType } from './builtin-tools.ts';

const provider = 'the openai-responses upstream';

export function encodeTools(tools: Tool[], warn: WarningSink): Json[] {
  return tools.map((t, i) => {
    if (t.type === 'function') {
      // Responses defaults `strict` to true, which would reject schemas written for other formats:
      // the IR's value is sent explicitly, false when unset.
      const out: Json = { type: 'function', name: t.name, parameters: t.parameters, strict: t.strict ?? false };
      if (t.description !== undefined) out.description = t.description;
      return out;
    }
    return encodeBuiltin(t, i, warn);
  });
}

function encodeBuiltin(t: BuiltinTool, i: number, warn: WarningSink): Json {
  const p = `tools[${i}]`;
  // Same format: the client's own definition, field for field.
  if (isBuiltinWireType(t.options.type) && builtinKinds[t.options.type] === t.kind) return { ...t.options };
  switch (t.kind) {
    case 'web-search': {
      const out: Json = { type: 'web_search_preview' };
      const loc = t.options.user_location;
      if (isObject(loc) && loc.type === 'approximate') out.user_location = loc;
      const dropped = Object.keys(t.options).filter((k) => k !== 'type' && k !== 'user_location');
      if (dropped.length > 0)
        warn(p, `web search options ${dropped.join(', ')} have no equivalent on ${provider} and were dropped`);
      return out;
    }
    case 'code-execution':
      return { type: 'code_interpreter', container: { type: 'auto' } };
    case 'file-search':
      // Vector stores live at OpenAI: only a definition that names them can be carried.
      if (Array.isArray(t.options.vector_store_ids))
        return { type: 'file_search', vector_store_ids: t.options.vector_store_ids };
      throw invalid(p, `${p}: a file search without vector_store_ids cannot be translated for ${provider}`);
    case 'web-fetch':
    case 'computer-use':
    case 'bash':
    case 'text-editor':
      throw invalid(p, `${p}: the built-in tool '${t.name ?? t.kind}' cannot be translated for ${provider}`);
    default:
      return assertNever(t.kind, 'builtin tool kind');
  }
}

/** A choice of one hosted tool (by name or kind) names its Responses type; any other, a function. */
export function encodeToolChoice(c: ToolChoice, tools: Tool[]): string | Json {
  return responsesToolChoice(c, (name) => {
    // A client's own function of that name is the one chosen, even when it is also a hosted tool's kind.
    if (tools.some((t) => t.type === 'function' && t.name === name)) return undefined;
    const hosted = tools.find((t): t is BuiltinTool => t.type === 'builtin' && (t.name === name || t.kind === name));
    if (!hosted) return undefined;
    return typeof hosted.options.type === 'string' && isBuiltinWireType(hosted.options.type)
      ? hosted.options.type
      : hostedTypeOf(hosted);
  });
}

/**
 * `tool_choice` as the Responses API writes it, sent to an upstream or echoed to a client;
 * `hostedType` gives the type of the hosted tool a choice of one tool names, if it names one.
 */
export function responsesToolChoice(c: ToolChoice, hostedType: (name: string) => string | undefined): string | Json {
  switch (c.type) {
    case 'auto':
    case 'none':
    case 'required':
      return c.type;
    case 'tool': {
      const type = hostedType(c.name);
      return type === undefined ? { type: 'function', name: c.name } : { type };
    }
    case 'allowed':
      return { type: 'allowed_tools', mode: c.mode, tools: c.names.map((name) => ({ type: 'function', name })) };
    default:
      return assertNever(c, 'tool choice');
  }
}

const hostedTypeOf = (t: BuiltinTool): string =>
  t.kind === 'web-search' ? 'web_search_preview' : t.kind === 'code-execution' ? 'code_interpreter' : t.kind;

/** Format names follow the json_schema rule: letters, digits, underscore, dash; at most 64. */
const formatName = (name: string): string => name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'response';

/**
 * `text.format` as the Responses API writes it: sent to an upstream, and echoed in the response
 * object a client gets (description before strict, the order OpenAI's own objects have).
 */
export function encodeTextFormat(f: OutputFormat): Json {
  switch (f.type) {
    case 'text':
      return { type: 'text' };
    case 'json':
      return { type: 'json_object' };
    case 'json-schema': {
      const out: Json = { type: 'json_schema', name: formatName(f.name), schema: f.schema };
      if (f.description !== undefined) out.description = f.description;
      out.strict = f.strict ?? false;
      return out;
    }
    default:
      return assertNever(f, 'output format');
  }
}
