// Chat Completions `tools`, `tool_choice` and `response_format` from a client → IR
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools).
import type { BuiltinTool, FunctionTool, OutputFormat, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import { arr, obj, oneOf, optBool, optStr, str, type Json } from '../shared/narrow.ts';
import { noteInto, openEnum } from '../shared/open-enum.ts';

/** Function and schema names: "a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64". */
const namePattern = /^[a-zA-Z0-9_-]{1,64}$/;
const maxTools = 128;

function name(v: unknown, field: string): string {
  const s = str(v, field);
  if (!namePattern.test(s))
    throw invalid(
      field,
      `${field}: must be 1-64 characters of a-z, A-Z, 0-9, underscores and dashes (got '${s.slice(0, 80)}')`,
    );
  return s;
}

/**
 * Function tools. A custom (free-form grammar) tool has no IR form, nor has a type newer than
 * polygate: both are dropped and named in a warning (docs/open-world.md).
 */
export function decodeChatTools(v: unknown, dropped: DroppedField[]): FunctionTool[] {
  if (v === undefined || v === null) return [];
  const list = arr(v, 'tools');
  if (list.length > maxTools)
    throw invalid('tools', `tools: at most ${maxTools} tools are allowed (got ${list.length})`);
  return list.flatMap((raw, i) => {
    const field = `tools[${i}]`;
    const t = obj(raw, field);
    const type = str(t.type, `${field}.type`);
    if (type !== 'function') {
      dropped.push({ field, value: type });
      return [];
    }
    return [functionTool(obj(t.function, `${field}.function`), `${field}.function`)];
  });
}

/**
 * The deprecated `functions` list: the same function objects without the `tools` wrapper
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-functions).
 */
export function decodeChatFunctions(v: unknown): FunctionTool[] {
  if (v === undefined || v === null) return [];
  return arr(v, 'functions').map((raw, i) => functionTool(obj(raw, `functions[${i}]`), `functions[${i}]`));
}

/** The deprecated `function_call`: 'none' | 'auto' | {name}; another word is left out (the model chooses), warned. */
export function decodeChatFunctionCall(
  v: unknown,
  tools: FunctionTool[],
  dropped: DroppedField[],
): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') {
    const type = openEnum(v, ['none', 'auto'] as const, 'function_call', noteInto(dropped));
    return type ? { type } : undefined;
  }
  const n = name(obj(v, 'function_call').name, 'function_call.name');
  if (!tools.some((t) => t.name === n))
    throw invalid('function_call', `function_call: the function '${n}' is not in 'functions'`);
  return { type: 'tool', name: n };
}

function functionTool(fn: Json, field: string): FunctionTool {
  const tool: FunctionTool = {
    type: 'function',
    name: name(fn.name, `${field}.name`),
    parameters: { type: 'object', properties: {} },
  };
  const description = optStr(fn.description, `${field}.description`);
  if (description !== undefined) tool.description = description;
  // A function without `parameters` takes no arguments (the documented default).
  if (fn.parameters !== undefined && fn.parameters !== null)
    tool.parameters = obj(fn.parameters, `${field}.parameters`);
  const strict = optBool(fn.strict, `${field}.strict`);
  if (strict !== undefined) tool.strict = strict;
  return tool;
}

/** https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice */
export function decodeChatToolChoice(
  v: unknown,
  tools: FunctionTool[],
  dropped: DroppedField[],
): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  const choice = decodeChoice(v, dropped);
  if (!choice) return undefined;
  if (choice.type !== 'none' && choice.type !== 'auto' && tools.length === 0) {
    throw invalid('tool_choice', "tool_choice: only allowed when 'tools' are specified");
  }
  return choice;
}

/**
 * A choice naming a dropped tool type (custom, or newer) cannot be honoured: dropped too. So is a
 * mode word newer than polygate (the model chooses, as with `auto`), warned.
 */
function decodeChoice(v: unknown, dropped: DroppedField[]): ToolChoice | undefined {
  if (typeof v === 'string') {
    const type = openEnum(v, ['none', 'auto', 'required'] as const, 'tool_choice', noteInto(dropped));
    return type ? { type } : undefined;
  }
  const c = obj(v, 'tool_choice');
  const type = str(c.type, 'tool_choice.type');
  switch (type) {
    case 'function':
      return { type: 'tool', name: name(obj(c.function, 'tool_choice.function').name, 'tool_choice.function.name') };
    case 'allowed_tools': {
      const a = obj(c.allowed_tools, 'tool_choice.allowed_tools');
      // A newer mode still limits the choice to these tools: read as `auto`, warned.
      const mode =
        openEnum(
          a.mode,
          ['auto', 'required'] as const,
          'tool_choice.allowed_tools.mode',
          noteInto(dropped),
          () => 'auto',
        ) ?? 'auto';
      const names = arr(a.tools, 'tool_choice.allowed_tools.tools').flatMap((t, i) => {
        const f = `tool_choice.allowed_tools.tools[${i}]`;
        const tool = obj(t, f);
        // Only functions are named: another type was dropped from `tools` already.
        return str(tool.type, `${f}.type`) === 'function'
          ? [name(obj(tool.function, `${f}.function`).name, `${f}.function.name`)]
          : [];
      });
      return { type: 'allowed', mode, names };
    }
    default:
      dropped.push({ field: 'tool_choice', value: type });
      return undefined;
  }
}

/**
 * `web_search_options` (OpenAI's search models always search) → the IR's web search tool, so an
 * upstream with a web search tool offers one; `user_location.approximate` is flattened into the
 * Responses shape the encoders read (city, country, region, timezone).
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-web_search_options
 */
export function decodeWebSearchOptions(v: unknown, dropped: DroppedField[]): BuiltinTool | undefined {
  if (v === undefined || v === null) return undefined;
  const o = obj(v, 'web_search_options');
  const options: Json = {};
  if (o.search_context_size !== undefined && o.search_context_size !== null) {
    // A size newer than polygate is left out (the upstream's default size), warned.
    const size = openEnum(
      o.search_context_size,
      ['low', 'medium', 'high'] as const,
      'web_search_options.search_context_size',
      noteInto(dropped),
    );
    if (size) options.search_context_size = size;
  }
  if (o.user_location !== undefined && o.user_location !== null) {
    const loc = obj(o.user_location, 'web_search_options.user_location');
    const approx = obj(loc.approximate, 'web_search_options.user_location.approximate');
    const flat: Json = { type: 'approximate' };
    for (const k of ['city', 'country', 'region', 'timezone'] as const) {
      const s = optStr(approx[k], `web_search_options.user_location.approximate.${k}`);
      if (s !== undefined) flat[k] = s;
    }
    options.user_location = flat;
  }
  return { type: 'builtin', kind: 'web-search', name: 'web_search', options };
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
      const out: OutputFormat = {
        type: 'json-schema',
        name: name(js.name, 'response_format.json_schema.name'),
        schema: {},
      };
      if (js.schema !== undefined && js.schema !== null)
        out.schema = obj(js.schema, 'response_format.json_schema.schema');
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
