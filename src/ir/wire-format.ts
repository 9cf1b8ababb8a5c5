// One name per wire format, shared by the adapters and src/ (issue #16: one concept, one name).
// Cross-format data is keyed by these names: a request's format-only options
// (ChatRequest.extensions) and the provider a reasoning part's opaque data belongs to
// (ReasoningPart.origin). docs/architecture.md "Cross-format data".

export const wireFormats = [
  'anthropic-messages',
  'openai-chat',
  'openai-responses',
  'gemini',
  'openai-audio',
  'tune',
] as const;
export type WireFormat = (typeof wireFormats)[number];

export const isWireFormat = (v: unknown): v is WireFormat =>
  typeof v === 'string' && (wireFormats as readonly string[]).includes(v);

/**
 * Who produced a reasoning part: the format of the upstream whose signature / encrypted content it
 * carries, or 'polygate' for reasoning the gateway wrote itself (the echo provider), which no
 * upstream accepts back.
 */
export type ReasoningOrigin = WireFormat | 'polygate';

/** Origins written before they were format names (in reasoning envelopes clients still hold). */
const legacyOrigins: Record<string, ReasoningOrigin> = {
  anthropic: 'anthropic-messages',
  openai: 'openai-responses',
  echo: 'polygate',
};

/** The origin a stored string names, or undefined when it names none. */
export function reasoningOriginOf(v: unknown): ReasoningOrigin | undefined {
  if (isWireFormat(v) || v === 'polygate') return v;
  return typeof v === 'string' && Object.hasOwn(legacyOrigins, v) ? legacyOrigins[v] : undefined;
}
