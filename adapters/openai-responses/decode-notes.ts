// What a Responses request decoder learns besides the IR: namespaced tool identities to restore on
// the way back, and the fields it could not carry, so every upstream encoder names them in a
// warning (they are written into `extensions` under their param path, e.g. `tools[4]`,
// `input[7]`; the value is only the wire type, never the field's content, which may hold secrets
// such as an MCP server's headers).
import type { ToolIdentities } from './tool-identities.ts';

export type DecodeNotes = { identities: ToolIdentities; dropped: Array<{ field: string; value: string }> };

export const newNotes = (): DecodeNotes => ({ identities: {}, dropped: [] });
