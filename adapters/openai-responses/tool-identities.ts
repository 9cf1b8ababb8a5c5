// Responses tools other formats lack, offered to them as plain IR function tools and restored on
// every tool call this adapter sends back, so the client sees the call it offered
// (node_modules/openai/resources/responses/responses.d.ts):
// - a `namespace` tool's function (NamespaceTool; ResponseFunctionToolCall.namespace) gets one flat
//   name, `<namespace>__<name>`;
// - a `custom` (free-form) tool (CustomTool; ResponseCustomToolCall) takes one string argument,
//   `input`, and its call goes back as a custom_tool_call with that text.
// The decoder records each such name's identity in the request's extensions.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { isObject } from '../shared/narrow.ts';
import { ownExtensions } from '../shared/format-extensions.ts';

export type ToolIdentity = { name: string; namespace?: string; custom?: boolean };
export type ToolIdentities = Record<string, ToolIdentity>;

/** The extensions key (client-side: adapters/shared/client-side-extensions.ts). */
export const toolIdentitiesKey = 'tool_identities';

/** Function names are at most 64 characters on every upstream polygate speaks to. */
const maxName = 64;

/** FNV-1a, 32 bits: a short, stable tag that keeps two long flattened names apart. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * `crm` + `lookup` → `crm__lookup` (the double underscore reads as a separator and is legal
 * everywhere). A namespace name is free text on the wire; characters function names may not
 * hold become `_` (the identity keeps the original).
 */
export function flatToolName(namespace: string, name: string): string {
  const flat = `${namespace.replace(/[^A-Za-z0-9_-]/g, '_')}__${name}`;
  return flat.length <= maxName ? flat : `${flat.slice(0, maxName - 9)}_${fnv1a(flat)}`;
}

export function readToolIdentities(req: ChatRequest): ToolIdentities {
  const v = ownExtensions(req, 'openai-responses')[toolIdentitiesKey];
  if (!isObject(v)) return {};
  const out: ToolIdentities = {};
  for (const [flat, id] of Object.entries(v)) {
    if (!isObject(id) || typeof id.name !== 'string') continue;
    const identity: ToolIdentity = { name: id.name };
    if (typeof id.namespace === 'string') identity.namespace = id.namespace;
    if (id.custom === true) identity.custom = true;
    out[flat] = identity;
  }
  return out;
}

export const identityOf = (flat: string, ids: ToolIdentities): ToolIdentity | undefined =>
  Object.hasOwn(ids, flat) ? ids[flat] : undefined;

/** The wire `name` and `namespace` of a tool call the IR names `flat`. */
export function wireToolName(flat: string, ids: ToolIdentities): { name: string; namespace?: string } {
  const id = identityOf(flat, ids);
  if (!id) return { name: flat };
  return id.namespace !== undefined ? { name: id.name, namespace: id.namespace } : { name: id.name };
}

/** The IR parameters of a custom tool: its free-form text is the one argument. */
export function customToolParameters(grammar: string | undefined): Record<string, unknown> {
  const description =
    grammar === undefined
      ? 'The free-form input of the tool.'
      : `The free-form input of the tool. It must match this grammar:\n${grammar}`;
  return {
    type: 'object',
    properties: { input: { type: 'string', description } },
    required: ['input'],
    additionalProperties: false,
  };
}

/** The text a custom tool call carries: the `input` argument, or the arguments as they came when the model sent something else. */
export function customInput(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (isObject(v) && typeof v.input === 'string') return v.input;
  } catch {
    // not JSON: the model wrote the input itself
  }
  return args;
}

/** An upstream's function call in IR words: a namespaced one gets its flat name, as its tool had. */
export function irCallName(item: Record<string, unknown>): string {
  const name = typeof item.name === 'string' ? item.name : '';
  return typeof item.namespace === 'string' && item.namespace !== '' ? flatToolName(item.namespace, name) : name;
}
