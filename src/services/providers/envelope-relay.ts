// A same-format relay through a cloud's envelope (docs/providers.md, "Bedrock" and "Vertex AI"):
// a Messages client routed to Claude on Bedrock (InvokeModel) or Vertex (rawPredict) keeps its
// body. The provider wraps it as its cloud wants (the version in the body, the model in the
// path, the betas as `anthropic_beta`) and signs or authorizes the call itself, so fields polygate
// does not know still reach the upstream (DESIGN.md, "Open world").
import type { IncomingHttpHeaders } from 'node:http';
import type { CallOptions, ChatProvider } from './chat-provider.ts';

/** The upstream's answer, already in the client's format: a JSON body, or SSE text for a stream. */
export type RelayedAnswer = {
  contentType: 'application/json' | 'text/event-stream';
  /** The answer's bytes; a failure mid-body rejects with a GatewayError. */
  body: AsyncIterable<Uint8Array | string>;
};

export interface EnvelopeRelay {
  /** `upstream.max_answer_bytes`: the most of one answer (a JSON body, one event) held in memory, the relay's usage tap included. */
  readonly maxAnswerBytes: number;
  /** Whether a client body in `format` for `upstreamModel` can be relayed (Claude models, Messages bodies). */
  relaysFormat(format: string, upstreamModel: string): boolean;
  /**
   * Sends the client's body in the envelope. Resolves once the upstream accepted it (2xx); rejects
   * with a GatewayError (in the upstream's words, credentials refused as a 502) otherwise, before
   * anything reached the client, so the next route may be tried.
   */
  relay(
    body: Record<string, unknown>,
    clientHeaders: IncomingHttpHeaders,
    upstreamModel: string,
    stream: boolean,
    opts: Omit<CallOptions, 'warn'>,
  ): Promise<RelayedAnswer>;
}

export const isEnvelopeRelay = (p: ChatProvider): p is ChatProvider & EnvelopeRelay =>
  typeof (p as Partial<EnvelopeRelay>).relaysFormat === 'function';

/**
 * A Messages body in a cloud's envelope: `anthropic_version` first, the named fields removed (the
 * model is in the path; Bedrock's stream is in the operation), the `anthropic-beta` header's values
 * added to any `anthropic_beta` the body has. Everything else stays as it came.
 */
export function messagesEnvelope(
  body: Record<string, unknown>,
  betaHeader: string | readonly string[] | undefined,
  version: string,
  drop: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { anthropic_version: version };
  for (const k in body) if (!drop.includes(k) && k !== 'anthropic_version') out[k] = body[k];
  const fromHeader = (typeof betaHeader === 'string' ? [betaHeader] : (betaHeader ?? []))
    .flatMap((h) => h.split(','))
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (fromHeader.length > 0) {
    const inBody = Array.isArray(body.anthropic_beta) ? (body.anthropic_beta as unknown[]) : [];
    out.anthropic_beta = [...new Set([...inBody, ...fromHeader])];
  }
  return out;
}
