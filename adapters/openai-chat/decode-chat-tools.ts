// Chat Completions `tools`, `tool_choice` and `response_format` from a client → IR
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools).
import type { FunctionTool, OutputFormat, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { arr, obj, oneOf, optBool, optStr, str } from '../shared/narrow.ts';

/** Function and schema names: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64". */
const namePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const maxTools = 128;

function name(v: unknown, field: string): string {
  const s = str(v, field);
  if (!namePattern.test(s)) throw invalid(field, `${field}: must be 1-64 characters of a-z, A-Z, 0-9, underscores and dashes (got '${s.slice(0, 80)}')`);
  return s;
}

export function decodeChatTools(v: unknown): FunctionTool[] {
  if (v === undefined || v === null) return [];
  const list = arr(v, 'tools');
  if (list.length > maxTools) throw invalid('tools', `tools: at most ${maxTools} tools are allowed (got ${list.length})`);
  return list.map((raw, i) => {
    const field = `tools[${i}]`;
    const t = obj(raw, field);
    const type = oneOf(t.type, ['function', 'custom'] as const, `${field}.type`);
    if (type === 'custom') throw invalid(`${field}.type`, `${field}.type: custom (free-form) tools are not supported by polygate; use function tools`);
    const fn = obj(t.function, `${field}.function`);
    const tool: FunctionTool = { type: 'function', name: name(fn.name, `${field}.function.name`), parameters: { type: 'object', properties: {} } };
    const description = optStr(fn.description, `${field}.function.description`);
    if (description !== undefined) tool.description = description;
    // A function without `parameters` takes no arguments (the documented default).
    if (fn.parameters !== undefined && fn.parameters !== null) tool.parameters = obj(fn.parameters, `${field}.function.parameters`);
    const strict = optBool(fn.strict, `${field}.function.strict`);
    if (strict !== undefined) tool.strict = strict;
    return tool;
  });
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice */
export function decodeChatToolChoice(v: unknown, tools: FunctionTool[]): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  const choice = decodeChoice(v);
  if (choice.type !== 'none' && choice.type !== 'auto' && tools.length === 0) {
    throw invalid('tool_choice', "tool_choice: only allowed when 'tools' are specified");
  }
  return choice;
}

function decodeChoice(v: unknown): ToolChoice {
  if (typeof v === 'string') return { type: oneOf(v, ['none', 'auto', 'required'] as const, 'tool_choice') };
  const c = obj(v, 'tool_choice');
  const type = oneOf(c.type, ['function', 'allowed_tools', 'custom'] as const, 'tool_choice.type');
  switch (type) {
    case 'function':
      return { type: 'tool', name: name(obj(c.function, 'tool_choice.function').name, 'tool_choice.function.name') };
    case 'allowed_tools': {
      const a = obj(c.allowed_tools, 'tool_choice.allowed_tools');
      const mode = oneOf(a.mode, ['auto', 'required'] as const, 'tool_choice.allowed_tools.mode');
      const names = arr(a.tools, 'tool_choice.allowed_tools.tools').map((t, i) => {
        const f = `tool_choice.allowed_tools.tools[${i}]`;
        const tool = obj(t, f);
        oneOf(tool.type, ['function'] as const, `${f}.type`);
        return name(obj(tool.function, `${f}.function`).name, `${f}.function.name`);
      });
      return { type: 'allowed', mode, names };
    }
    case 'custom':
      throw invalid('tool_choice.type', 'tool_choice.type: custom tools are not supported by polygate');
    default:
      return assertNever(type, 'tool choice type');
  }
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format */
export function decodeChatResponseFormat(v: unknown): OutputFormat | undefined {
  if (v === undefined || v === null) return undefined;
  const f = obj(v, 'response_format');
  const type = oneOf(f.type, ['text', 'json_object', 'json_schema'] as const, 'response_format.type');
  switch (type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json' };
    case 'json_schema': {
      const js = obj(f.json_schema, 'response_format.json_schema');
      const out: OutputFormat = { type: 'json-schema', name: name(js.name, 'response_format.json_schema.name'), schema: {} };
      if (js.schema !== undefined && js.schema !== null) out.schema = obj(js.schema, 'response_format.json_schema.schema');
      const description = optStr(js.description, 'response_format.json_schema.description');
      if (description !== undefined) out.description = description;
      const strict = optBool(js.strict, 'response_format.json_schema.strict');
      if (strict !== undefined) out.strict = strict;
      return out;
    }
    default:
      return assertNever(type, 'response format type');
  }
}
