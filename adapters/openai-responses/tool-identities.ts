// Tool names the Responses wire keeps in two fields (a `namespace` tool's function: `namespace` +
// `name`, node_modules/openai/resources/responses/responses.d.ts NamespaceTool and
// ResponseFunctionToolCall.namespace) become one flat IR function name, because no other format
// has namespaces. The decoder records each flat name's identity in the request's extensions, and
// this adapter's encoders restore it on every tool call they send back, so the client sees the
// namespaced call it offered.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { isObject } from '../shared/narrow.ts';

export type ToolIdentity = { namespace: string; name: string };
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

/** `crm` + `lookup` → `crm__lookup` (the double underscore reads as a separator and is legal everywhere). */
export function flatToolName(namespace: string, name: string): string {
  const flat = `${namespace}__${name}`;
  return flat.length <= maxName ? flat : `${flat.slice(0, maxName - 9)}_${fnv1a(flat)}`;
}

export function readToolIdentities(req: ChatRequest): ToolIdentities {
  const v = req.extensions[toolIdentitiesKey];
  if (!isObject(v)) return {};
  const out: ToolIdentities = {};
  for (const [flat, id] of Object.entries(v)) {
    if (isObject(id) && typeof id.namespace === 'string' && typeof id.name === 'string') out[flat] = { namespace: id.namespace, name: id.name };
  }
  return out;
}

/** The wire `name` and `namespace` of a tool call the IR names `flat`. */
export function wireToolName(flat: string, ids: ToolIdentities): { name: string; namespace?: string } {
  const id = Object.hasOwn(ids, flat) ? ids[flat] : undefined;
  return id ? { name: id.name, namespace: id.namespace } : { name: flat };
}
