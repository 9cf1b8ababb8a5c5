// Reads what an emulated upstream received, in that upstream's own wire format, into one shape
// the matrix can compare across upstreams.
import type { RecordedRequest } from '../../../emulators/emulator-types.ts';
import type { Json, JsonSchema } from '../fixtures.ts';

export type Received = RecordedRequest;

export interface Inspector {
  /** The credential the request presented upstream. */
  key(r: Received): string | undefined;
  model(r: Received): string;
  /** The system prompt, from where this format puts it. */
  system(r: Received): string | undefined;
  tools(r: Received): Array<{ name: string; schema: unknown }>;
  /** The tool the request forces, in this format's tool-choice form. */
  forcedTool(r: Received): string | undefined;
  /** The assistant's tool call replayed in the history. */
  historyCall(r: Received): { id?: string; name: string; args: Json } | undefined;
  /** The tool result in this format's own form. */
  toolResult(r: Received): { callId?: string; name?: string; text: string } | undefined;
  image(r: Received): { mediaType: string; data: string } | undefined;
  /** The structured-output schema in this format's native field. */
  outputSchema(r: Received): JsonSchema | undefined;
  /** Reasoning as this format configures it: a token budget or an effort word. */
  reasoning(r: Received): { budget?: number; effort?: string } | undefined;
  /** Opaque reasoning tokens (signatures, encrypted content) replayed in the history. */
  replayedTokens(r: Received): string[];
}

export const body = (r: Received): Json => r.body as Json;
export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObj) : []);
export const header = (r: Received, name: string): string | undefined => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
/** `data:<type>;base64,<data>` → its parts. */
export function dataUrl(url: unknown): { mediaType: string; data: string } | undefined {
  const m = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  return m ? { mediaType: m[1], data: m[2] } : undefined;
}
/** A text field as a string: the string itself, or its parts' `text` joined. */
export const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : list(content)
        .map((c) => (typeof c.text === 'string' ? c.text : ''))
        .join('');
/** An `authorization` header's bearer credential. */
export const bearer = (v: string | undefined): string | undefined => v?.replace(/^Bearer /, '');
/** The schema of a `{ type: 'json_schema', schema }` output format (Anthropic's and Responses' form). */
export const jsonSchemaOf = (format: unknown): JsonSchema | undefined =>
  isObj(format) && format.type === 'json_schema' && isObj(format.schema) ? format.schema : undefined;
