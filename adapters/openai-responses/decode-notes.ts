// What a Responses request decoder learns besides the IR: namespaced tool identities to restore on
// the way back (tool-identities.ts), and the fields it dropped (adapters/shared/dropped-fields.ts).
import type { DroppedField } from '../shared/dropped-fields.ts';
import type { ToolIdentities } from './tool-identities.ts';

export type DecodeNotes = { identities: ToolIdentities; dropped: DroppedField[] };

export const newNotes = (): DecodeNotes => ({ identities: {}, dropped: [] });
