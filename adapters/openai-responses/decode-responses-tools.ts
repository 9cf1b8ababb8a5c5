// `tools`, `tool_choice` and `text.format` of a Responses request → IR
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools,
// https://platform.openai.com/docs/guides/structured-outputs).
import type { FunctionTool, OutputFormat, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, bool, obj, str, type Json } from '../shared/narrow.ts';
import { builtinKinds, decodeBuiltinTool, isBuiltinWireType } from './builtin-tools.ts';
import { absent, enumOf, identifier, missing, required } from './responses-validate.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

const toolTypes = ['function', ...Object.keys(builtinKinds)] as const;

export function decodeTools(v: unknown): Tool[] {
  if (absent(v)) return [];
  return arr(v, 'tools').map((raw, i): Tool => {
    const p = `tools[${i}]`;
    const t = obj(raw, p);
    const type = required(t.type, `${p}.type`, (x, f) => enumOf(x, toolTypes, f));
    if (type === 'function') return decodeFunctionTool(t, p);
    if (isBuiltinWireType(type)) return decodeBuiltinTool(t, type, p);
    throw invalid(`${p}.type`, `Invalid value for '${p}.type': '${type}'.`);
  });
}

/** `strict` defaults to true in the Responses API (unlike Chat Completions). */
function decodeFunctionTool(t: Json, p: string): FunctionTool {
  const name = required(t.name, `${p}.name`, identifier);
  if (t.parameters === undefined) throw missing(`${p}.parameters`);
  // null parameters mean a function without arguments.
  const parameters = t.parameters === null ? { type: 'object', properties: {} } : obj(t.parameters, `${p}.parameters`);
  const tool: FunctionTool = { type: 'function', name, parameters, strict: absent(t.strict) ? true : bool(t.strict, `${p}.strict`) };
  if (!absent(t.description)) tool.description = str(t.description, `${p}.description`);
  return tool;
}

/**
 * Strings none / auto / required; {type: 'function', name}; a hosted tool {type: 'file_search'}
 * (→ IR {type: 'tool', name: <that tool's wire type>}); {type: 'allowed_tools', mode, tools}.
 */
export function decodeToolChoice(v: unknown, tools: Tool[]): ToolChoice | undefined {
  if (absent(v)) return undefined;
  if (typeof v === 'string') {
    const mode = enumOf(v, ['none', 'auto', 'required'] as const, 'tool_choice');
    if (mode === 'required' && tools.length === 0) throw invalid('tool_choice', "Tool choice 'required' must be specified with 'tools' parameter.");
    return { type: mode };
  }
  const c = obj(v, 'tool_choice');
  const type = required(c.type, 'tool_choice.type', str);
  if (type === 'function') {
    const name = required(c.name, 'tool_choice.name', str);
    if (!tools.some((t) => t.type === 'function' && t.name === name)) {
      throw invalid('tool_choice', `Tool choice 'function' with name '${name}' not found in 'tools' parameter.`);
    }
    return { type: 'tool', name };
  }
  if (type === 'allowed_tools') {
    const mode = required(c.mode, 'tool_choice.mode', (x, f) => enumOf(x, ['auto', 'required'] as const, f));
    const names = required(c.tools, 'tool_choice.tools', arr).map((raw, k) => {
      const t = obj(raw, `tool_choice.tools[${k}]`);
      enumOf(t.type, ['function'] as const, `tool_choice.tools[${k}].type`);
      return required(t.name, `tool_choice.tools[${k}].name`, str);
    });
    return { type: 'allowed', names, mode };
  }
  if (isBuiltinWireType(type)) {
    const kind = builtinKinds[type];
    const tool = tools.find((t) => t.type === 'builtin' && t.kind === kind);
    if (!tool || tool.type !== 'builtin') throw invalid('tool_choice', `Tool choice '${type}' not found in 'tools' parameter.`);
    return { type: 'tool', name: tool.name ?? type };
  }
  throw invalid('tool_choice.type', `Invalid value for 'tool_choice.type': '${type}'.`);
}

/** `text.format`: text (default), json_object, or json_schema {name, schema, description?, strict?}. */
export function decodeTextFormat(v: unknown): { output?: OutputFormat; verbosity?: string } {
  if (absent(v)) return {};
  const text = obj(v, 'text');
  const out: { output?: OutputFormat; verbosity?: string } = {};
  if (!absent(text.verbosity)) out.verbosity = enumOf(text.verbosity, ['low', 'medium', 'high'] as const, 'text.verbosity');
  if (absent(text.format)) return out;
  const f = obj(text.format, 'text.format');
  const type = required(f.type, 'text.format.type', (x, field) => enumOf(x, ['text', 'json_schema', 'json_object'] as const, field));
  switch (type) {
    case 'text':
      out.output = { type: 'text' };
      break;
    case 'json_object':
      out.output = { type: 'json' };
      break;
    case 'json_schema': {
      const name = required(f.name, 'text.format.name', identifier);
      const schema = required(f.schema, 'text.format.schema', obj);
      const format: OutputFormat = { type: 'json-schema', name, schema, strict: absent(f.strict) ? false : bool(f.strict, 'text.format.strict') };
      if (!absent(f.description)) format.description = str(f.description, 'text.format.description');
      out.output = format;
      break;
    }
    default:
      return assertNever(type, 'text format');
  }
  return out;
}

