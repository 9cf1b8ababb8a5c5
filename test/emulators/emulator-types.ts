// Shared shape of the upstream emulators: small HTTP servers on loopback that speak one vendor
// wire format byte for byte. Tests script the next replies and read back what arrived.

export type RecordedRequest = {
  method: string;
  path: string; // with query string
  headers: Record<string, string | string[] | undefined>;
  body: unknown; // parsed JSON (or raw string if not JSON)
  /** The body exactly as it arrived (UTF-8): what a byte-for-byte relay check compares. */
  raw?: string;
  /** The caller's port: requests that came over one kept-alive connection share it. */
  remotePort?: number;
};

/** One scripted reply. With no script queued, an emulator echoes the last user text. */
export type Reply =
  /**
   * `usage` (Chat emulator): the usage object sent instead of the counted one, or `null` for none
   * at all, as a compatible server that ignores `stream_options` sends.
   */
  | { kind: 'text'; text: string; chunks?: string[]; usage?: Record<string, unknown> | null }
  | { kind: 'tool'; name: string; args: string; id?: string; argChunks?: string[]; text?: string }
  /** `redacted` (Bedrock Converse): a redactedContent block (base64 bytes) after the reasoning text. */
  | { kind: 'thinking'; thinking: string; signature: string; text: string; redacted?: string }
  /**
   * Text that ends with the upstream's own stop word put verbatim where the format puts it
   * (Anthropic `refusal`, Chat `content_filter`, Responses incomplete reason `max_output_tokens`,
   * Gemini `SAFETY`…). `blocked`: Gemini's whole-prompt block (promptFeedback.blockReason, no candidate).
   */
  | { kind: 'stop'; word: string; text: string; blocked?: boolean }
  | { kind: 'error'; status: number; message?: string; retryAfter?: number }
  /** Sends the first text chunk, then destroys the socket: an upstream failing after the first byte. */
  | { kind: 'cut'; text: string };

/**
 * Chooses the reply to a request when nothing is queued (`undefined`: the default echo). Lets a
 * test answer a client that sends requests of its own (a coding CLI's background calls) by what
 * each request holds rather than by arrival order.
 */
export type Responder = (req: RecordedRequest) => Reply | undefined;

export interface Emulator {
  /** Base URL as a provider's base_url would name it (e.g. http://127.0.0.1:PORT or …/v1). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queue replies for the next requests, in order. */
  script(...replies: Reply[]): void;
  /** Sets (or with `undefined` removes) the responder consulted after the queue; `reset` removes it. */
  respond(responder: Responder | undefined): void;
  reset(): void;
  close(): Promise<void>;
}
