// `tools` and `tool_choice`, following https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview
// and the spec's Messages tool table. Built-in (Anthropic-run or Anthropic-schema) tools are
// recognised by their dated `type`, so newer versions of a known kind work without a code change.
import type { BuiltinTool, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, bool, int, obj, optBool, optStr, str, type Json } from '../shared/narrow.ts';
import { noteUnmapped, openEnum } from '../shared/open-enum.ts';
import { cacheOf, type UnmappedSink } from './decode-messages-content.ts';

type Kind = BuiltinTool['kind'];

/** Dated type prefix -> IR kind, and the tool names the API fixes for each kind. */
const builtinKinds: Array<{ prefix: string; kind: Kind; names: string[] }> = [
  { prefix: 'computer_', kind: 'computer-use', names: ['computer'] },
  { prefix: 'bash_', kind: 'bash', names: ['bash'] },
  { prefix: 'text_editor_', kind: 'text-editor', names: ['str_replace_editor', 'str_replace_based_edit_tool'] },
  { prefix: 'web_search_', kind: 'web-search', names: ['web_search'] },
  { prefix: 'web_fetch_', kind: 'web-fetch', names: ['web_fetch'] },
  { prefix: 'code_execution_', kind: 'code-execution', names: ['code_execution'] },
];

/** Custom-tool keys the IR carries; any other is left out and reported (a translated route cannot carry it). */
const customKeys = new Set(['type', 'name', 'description', 'input_schema', 'cache_control', 'strict']);
/**
 * Custom-tool keys that change how the answer is delivered, never what it says: left out without
 * a warning. `eager_input_streaming` streams a tool's input unbuffered; a translated stream is
 * re-encoded by polygate event by event anyway (the Vercel AI SDK sets it on every tool).
 */
const deliveryHints = new Set(['eager_input_streaming']);

function toolName(v: unknown, field: string): string {
  const name = str(v, field);
  if (name.length < 1 || name.length > 64)
    throw invalid(field, `${field}: must be 1 to 64 characters (got ${name.length})`);
  return name;
}

function decodeCustom(t: Json, field: string, note: UnmappedSink): Tool {
  for (const key of Object.keys(t)) {
    if (!customKeys.has(key) && !deliveryHints.has(key) && t[key] !== undefined && t[key] !== null) {
      note({ field: `${field}.${key}`, message: 'this tool field cannot be translated; dropped' });
    }
  }
  const name = toolName(t.name, `${field}.name`);
  if (t.input_schema === undefined || t.input_schema === null)
    throw invalid(`${field}.input_schema`, `${field}.input_schema: field required`);
  const parameters = obj(t.input_schema, `${field}.input_schema`);
  const description = optStr(t.description, `${field}.description`);
  const strict = optBool(t.strict, `${field}.strict`);
  const cache = cacheOf(t.cache_control, `${field}.cache_control`, note);
  return {
    type: 'function',
    name,
    ...(description !== undefined ? { description } : {}),
    parameters,
    ...(strict !== undefined ? { strict } : {}),
    ...(cache ? { cache } : {}),
  };
}

/** A tool of a type the IR has no kind for is one the provider runs: undefined, reported as a hosted tool. */
function decodeBuiltin(t: Json, type: string, field: string, note: UnmappedSink): Tool | undefined {
  const known = /^[a-z_]+_\d{8}$/.test(type) ? builtinKinds.find((k) => type.startsWith(k.prefix)) : undefined;
  if (!known) {
    note({ field, message: `tool type '${type}' cannot be translated; dropped`, hostedTool: true });
    return undefined;
  }
  // A newer version of a known kind may fix a new name (text_editor_20250728 did): any name is
  // carried, and calls come back under it.
  const name = toolName(t.name, `${field}.name`);
  if (!known.names.includes(name))
    note({ field: `${field}.name`, message: `'${name}' is not a name polygate knows for '${type}'; kept` });
  if (known.kind === 'computer-use') {
    for (const k of ['display_width_px', 'display_height_px']) {
      if (t[k] === undefined) throw invalid(`${field}.${k}`, `${field}.${k}: field required`);
      if (int(t[k], `${field}.${k}`) < 1) throw invalid(`${field}.${k}`, `${field}.${k}: must be a positive integer`);
    }
    if (t.display_number !== undefined && t.display_number !== null) int(t.display_number, `${field}.display_number`);
  }
  const cache = cacheOf(t.cache_control, `${field}.cache_control`, note);
  // The vendor settings travel as they came, for a same-format upstream.
  const { type: _type, name: _name, cache_control: _cache, ...options } = t;
  return { type: 'builtin', kind: known.kind, name, options, ...(cache ? { cache } : {}) };
}

export function decodeTools(v: unknown, note: UnmappedSink): Tool[] {
  if (v === undefined || v === null) return [];
  const seen = new Set<string>();
  return arr(v, 'tools').flatMap((item, i): Tool[] => {
    const field = `tools.${i}`;
    const t = obj(item, field);
    const type = t.type === undefined || t.type === null ? 'custom' : str(t.type, `${field}.type`);
    const tool = type === 'custom' ? decodeCustom(t, field, note) : decodeBuiltin(t, type, field, note);
    if (!tool) return [];
    const name = tool.type === 'function' ? tool.name : (tool.name ?? tool.kind);
    if (seen.has(name)) throw invalid(`${field}.name`, `${field}.name: tool names must be unique ('${name}' repeats)`);
    seen.add(name);
    return [tool];
  });
}

export type DecodedToolChoice = { toolChoice?: ToolChoice; parallelToolCalls?: boolean };

/** A choice type newer than polygate is left out (the model chooses, as with `auto`), warned. */
export function decodeToolChoice(v: unknown, note: UnmappedSink): DecodedToolChoice {
  if (v === undefined || v === null) return {};
  const c = obj(v, 'tool_choice');
  const type = openEnum(c.type, ['auto', 'any', 'tool', 'none'] as const, 'tool_choice.type', noteUnmapped(note));
  let toolChoice: ToolChoice;
  if (type === undefined) {
    // The parallel-use flag still says what the client wants.
    const flag = c.disable_parallel_tool_use;
    return flag === undefined || flag === null
      ? {}
      : { parallelToolCalls: !bool(flag, 'tool_choice.disable_parallel_tool_use') };
  }
  if (type === 'auto') toolChoice = { type: 'auto' };
  else if (type === 'any') toolChoice = { type: 'required' };
  else if (type === 'none') toolChoice = { type: 'none' };
  else toolChoice = { type: 'tool', name: toolName(c.name, 'tool_choice.name') };
  const flag = c.disable_parallel_tool_use;
  if (flag === undefined || flag === null) return { toolChoice };
  return { toolChoice, parallelToolCalls: !bool(flag, 'tool_choice.disable_parallel_tool_use') };
}
