// `tools`, `tool_choice` and `text.format` of a Responses request → IR
// (https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools,
// https://platform.openai.com/docs/guides/structured-outputs).
import type { FunctionTool, OutputFormat, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, bool, obj, str, type Json } from '../shared/narrow.ts';
import { builtinKinds, decodeBuiltinTool, isBuiltinWireType } from './builtin-tools.ts';
import type { DecodeNotes } from './decode-notes.ts';
import { absent, enumOf, identifier, missing, required } from './responses-validate.ts';
import { noteInto, openEnum } from '../shared/open-enum.ts';
import { customToolParameters, flatToolName } from './tool-identities.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

/**
 * Function tools, hosted tools with an IR kind, `namespace` and `custom` tools (as functions:
 * tool-identities.ts). Any other type (mcp, local_shell, image_generation, shell, apply_patch, a
 * type newer than polygate) is no error: it has no IR form, so it is noted as dropped and every
 * upstream encoder names it in a warning (a same-format relay sends the body as it came).
 */
export function decodeTools(v: unknown, notes: DecodeNotes): Tool[] {
  if (absent(v)) return [];
  const out: Tool[] = [];
  arr(v, 'tools').forEach((raw, i) => {
    const p = `tools[${i}]`;
    const t = obj(raw, p);
    const type = required(t.type, `${p}.type`, str);
    if (type === 'function') out.push(decodeFunctionTool(t, p));
    else if (isBuiltinWireType(type)) out.push(decodeBuiltinTool(t, type, p));
    else if (type === 'namespace') out.push(...decodeNamespace(t, p, notes));
    else if (type === 'custom') out.push(decodeCustomTool(t, p, notes, undefined));
    else notes.dropped.push({ field: p, value: type });
  });
  return out;
}

/** A namespace holds function and custom tools; each gets a flat name. */
function decodeNamespace(t: Json, p: string, notes: DecodeNotes): FunctionTool[] {
  const namespace = required(t.name, `${p}.name`, str);
  const out: FunctionTool[] = [];
  required(t.tools, `${p}.tools`, arr).forEach((raw, k) => {
    const q = `${p}.tools[${k}]`;
    const inner = obj(raw, q);
    const type = required(inner.type, `${q}.type`, str);
    if (type === 'custom') {
      out.push(decodeCustomTool(inner, q, notes, namespace));
      return;
    }
    if (type !== 'function') {
      notes.dropped.push({ field: q, value: type });
      return;
    }
    const fn = decodeFunctionTool(inner, q, false);
    const flat = flatToolName(namespace, fn.name);
    notes.identities[flat] = { namespace, name: fn.name };
    out.push({ ...fn, name: flat });
  });
  return out;
}

/**
 * A custom (free-form) tool → an IR function with one string argument, `input`; a grammar
 * format is shown to the model in that argument's description (no other format constrains
 * output by grammar). Its identity lets the encoders answer with a custom_tool_call.
 */
function decodeCustomTool(t: Json, p: string, notes: DecodeNotes, namespace: string | undefined): FunctionTool {
  const name = required(t.name, `${p}.name`, identifier);
  let grammar: string | undefined;
  if (!absent(t.format)) {
    const f = obj(t.format, `${p}.format`);
    const type = required(f.type, `${p}.format.type`, str);
    if (type === 'grammar')
      grammar = `${str(f.syntax ?? 'lark', `${p}.format.syntax`)}:\n${required(f.definition, `${p}.format.definition`, str)}`;
  }
  const flat = namespace === undefined ? name : flatToolName(namespace, name);
  notes.identities[flat] = namespace === undefined ? { name, custom: true } : { name, namespace, custom: true };
  const tool: FunctionTool = { type: 'function', name: flat, parameters: customToolParameters(grammar) };
  if (!absent(t.description)) tool.description = str(t.description, `${p}.description`);
  return tool;
}

/**
 * `strict` defaults to true in the Responses API (unlike Chat Completions). Inside a namespace
 * `parameters` may be left out and `strict` falls back to non-strict when the schema does not fit
 * (NamespaceTool.Function), so there it stays unset.
 */
function decodeFunctionTool(t: Json, p: string, topLevel = true): FunctionTool {
  const name = required(t.name, `${p}.name`, identifier);
  if (!topLevel) {
    const parameters = absent(t.parameters) ? { type: 'object', properties: {} } : obj(t.parameters, `${p}.parameters`);
    const tool: FunctionTool = { type: 'function', name, parameters };
    if (!absent(t.strict)) tool.strict = bool(t.strict, `${p}.strict`);
    if (!absent(t.description)) tool.description = str(t.description, `${p}.description`);
    return tool;
  }
  if (t.parameters === undefined) throw missing(`${p}.parameters`);
  // null parameters mean a function without arguments.
  const parameters = t.parameters === null ? { type: 'object', properties: {} } : obj(t.parameters, `${p}.parameters`);
  const tool: FunctionTool = {
    type: 'function',
    name,
    parameters,
    strict: absent(t.strict) ? true : bool(t.strict, `${p}.strict`),
  };
  if (!absent(t.description)) tool.description = str(t.description, `${p}.description`);
  return tool;
}

/**
 * Strings none / auto / required; {type: 'function', name} (a namespaced function by its flat
 * name, or by `name` + `namespace`); a hosted tool {type: 'file_search'} (→ IR {type: 'tool',
 * name: <that tool's wire type>}); {type: 'allowed_tools', mode, tools}. A choice that names a
 * tool type polygate dropped (mcp, custom, …) cannot be honoured: it is dropped too, with a warning.
 */
export function decodeToolChoice(v: unknown, tools: Tool[], notes: DecodeNotes): ToolChoice | undefined {
  if (absent(v)) return undefined;
  if (typeof v === 'string') {
    // A mode newer than polygate is left out (the model chooses, as with `auto`), warned.
    const mode = openEnum(v, ['none', 'auto', 'required'] as const, 'tool_choice', noteInto(notes.dropped));
    if (mode === undefined) return undefined;
    if (mode === 'required' && tools.length === 0)
      throw invalid('tool_choice', "Tool choice 'required' must be specified with 'tools' parameter.");
    return { type: mode };
  }
  const c = obj(v, 'tool_choice');
  const type = required(c.type, 'tool_choice.type', str);
  if (type === 'function') {
    const given = required(c.name, 'tool_choice.name', str);
    const name = typeof c.namespace === 'string' ? flatToolName(c.namespace, given) : given;
    if (!tools.some((t) => t.type === 'function' && t.name === name)) {
      throw invalid('tool_choice', `Tool choice 'function' with name '${given}' not found in 'tools' parameter.`);
    }
    return { type: 'tool', name };
  }
  if (type === 'allowed_tools') {
    // A newer mode still limits the choice to these tools: read as `auto`, warned.
    const mode = required(
      c.mode,
      'tool_choice.mode',
      (x, f): 'auto' | 'required' =>
        openEnum(x, ['auto', 'required'] as const, f, noteInto(notes.dropped), () => 'auto' as const) ?? 'auto',
    );
    const names: string[] = [];
    required(c.tools, 'tool_choice.tools', arr).forEach((raw, k) => {
      const t = obj(raw, `tool_choice.tools[${k}]`);
      const kind = required(t.type, `tool_choice.tools[${k}].type`, str);
      // Hosted and unknown tool types are allowed by being offered; only functions are named.
      if (kind !== 'function') return;
      const name = required(t.name, `tool_choice.tools[${k}].name`, str);
      names.push(typeof t.namespace === 'string' ? flatToolName(t.namespace, name) : name);
    });
    return { type: 'allowed', names, mode };
  }
  if (isBuiltinWireType(type)) {
    const kind = builtinKinds[type];
    const tool = tools.find((t) => t.type === 'builtin' && t.kind === kind);
    if (!tool || tool.type !== 'builtin')
      throw invalid('tool_choice', `Tool choice '${type}' not found in 'tools' parameter.`);
    return { type: 'tool', name: tool.name ?? type };
  }
  notes.dropped.push({ field: 'tool_choice', value: type });
  return undefined;
}

/** `text.format`: text (default), json_object, or json_schema {name, schema, description?, strict?}. */
export function decodeTextFormat(v: unknown): { output?: OutputFormat; verbosity?: string } {
  if (absent(v)) return {};
  const text = obj(v, 'text');
  const out: { output?: OutputFormat; verbosity?: string } = {};
  // Polygate only relays verbosity (or warns it away), so a value newer than polygate is no error.
  if (!absent(text.verbosity)) out.verbosity = str(text.verbosity, 'text.verbosity');
  if (absent(text.format)) return out;
  const f = obj(text.format, 'text.format');
  const type = required(f.type, 'text.format.type', (x, field) =>
    enumOf(x, ['text', 'json_schema', 'json_object'] as const, field),
  );
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
      const format: OutputFormat = {
        type: 'json-schema',
        name,
        schema,
        strict: absent(f.strict) ? false : bool(f.strict, 'text.format.strict'),
      };
      if (!absent(f.description)) format.description = str(f.description, 'text.format.description');
      out.output = format;
      break;
    }
    default:
      return assertNever(type, 'text format');
  }
  return out;
}
