// IR tools and tool choice -> Messages `tools` / `tool_choice`
// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview).
import type { BuiltinTool, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { WarningSink } from '../shared/chat-adapter.ts';
import { forcedBuiltinTool } from '../shared/forced-builtin-tool.ts';
import type { Json } from '../shared/narrow.ts';

const FORMAT = 'anthropic-messages';

type Spec = { type: string; name: string; keys: string[]; required?: string[]; rename?: Record<string, string> };

/**
 * Anthropic's typed tool for each IR kind. BuiltinTool does not keep the dated version the client
 * named, so current versions are used (text editor: the version its tool name belongs to).
 * `rename` maps the OpenAI Responses spelling of the same setting.
 */
function specOf(t: BuiltinTool, field: string): Spec {
  switch (t.kind) {
    case 'web-search':
      return {
        type: 'web_search_20250305',
        name: 'web_search',
        keys: ['max_uses', 'allowed_domains', 'blocked_domains', 'user_location'],
      };
    case 'web-fetch':
      return {
        type: 'web_fetch_20250910',
        name: 'web_fetch',
        keys: ['max_uses', 'allowed_domains', 'blocked_domains', 'citations', 'max_content_tokens'],
      };
    case 'computer-use':
      return {
        type: 'computer_20250124',
        name: 'computer',
        keys: ['display_width_px', 'display_height_px', 'display_number'],
        required: ['display_width_px', 'display_height_px'],
        rename: { display_width: 'display_width_px', display_height: 'display_height_px' },
      };
    case 'bash':
      return { type: 'bash_20250124', name: 'bash', keys: [] };
    case 'text-editor':
      return t.name === 'str_replace_editor'
        ? { type: 'text_editor_20250124', name: 'str_replace_editor', keys: [] }
        : { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', keys: ['max_characters'] };
    case 'code-execution':
      return { type: 'code_execution_20250825', name: 'code_execution', keys: [] };
    case 'file-search':
      throw invalid(field, `${field}: the file search tool is not supported by ${FORMAT}`);
    default:
      return assertNever(t.kind, 'builtin tool kind');
  }
}

const cacheOf = (t: Tool): Json =>
  t.cache ? { cache_control: t.cache.ttl ? { type: 'ephemeral', ttl: t.cache.ttl } : { type: 'ephemeral' } } : {};

function builtinTool(t: BuiltinTool, field: string, warn: WarningSink): Json {
  const spec = specOf(t, field);
  const settings: Json = {};
  for (const [key, value] of Object.entries(t.options)) {
    // A Responses tool's options are its whole wire object: its `type` names the tool, not a setting.
    if (key === 'type') continue;
    const wire = spec.rename?.[key] ?? key;
    if (spec.keys.includes(wire)) settings[wire] = value;
    else warn(`${field}.${key}`, `not supported by the ${FORMAT} ${spec.name} tool; dropped`);
  }
  for (const key of spec.required ?? []) {
    if (settings[key] === undefined)
      throw invalid(`${field}.${key}`, `${field}.${key}: required by the ${FORMAT} ${spec.name} tool`);
  }
  return { type: spec.type, name: spec.name, ...settings, ...cacheOf(t) };
}

export function encodeTools(tools: Tool[], warn: WarningSink): Json[] {
  return tools.map((t, i) => {
    if (t.type === 'builtin') return builtinTool(t, `tools.${i}`, warn);
    // Anthropic requires an object schema; an empty parameter list arrives as {} from some formats.
    const schema = t.parameters.type === undefined ? { type: 'object', properties: {}, ...t.parameters } : t.parameters;
    return {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      input_schema: schema,
      ...(t.strict ? { strict: true } : {}),
      ...cacheOf(t),
    };
  });
}

export type EncodedToolChoice = { tools: Tool[]; toolChoice?: Json };

/**
 * `allowed` (a subset of tools) has no Messages equivalent, so the tools offered are narrowed to
 * that subset instead: the model cannot call what it is not shown.
 */
export function encodeToolChoice(
  tools: Tool[],
  choice: ToolChoice | undefined,
  parallel: boolean | undefined,
): EncodedToolChoice {
  if (tools.length === 0) return { tools };
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (!choice) return { tools, ...(parallel === false ? { toolChoice: { type: 'auto', ...noParallel } } : {}) };
  switch (choice.type) {
    case 'auto':
      return { tools, toolChoice: { type: 'auto', ...noParallel } };
    case 'none':
      return { tools, toolChoice: { type: 'none' } };
    case 'required':
      return { tools, toolChoice: { type: 'any', ...noParallel } };
    case 'tool': {
      // A hosted tool is named by the other format's word (`web_search_preview`): Anthropic's own name goes out.
      const hosted = forcedBuiltinTool(tools, choice);
      const name = hosted ? specOf(hosted, 'tool_choice').name : choice.name;
      return { tools, toolChoice: { type: 'tool', name, ...noParallel } };
    }
    case 'allowed': {
      const kept = tools.filter((t) => t.type === 'builtin' || choice.names.includes(t.name));
      return { tools: kept, toolChoice: { type: choice.mode === 'required' ? 'any' : 'auto', ...noParallel } };
    }
    default:
      return assertNever(choice, 'tool choice');
  }
}
