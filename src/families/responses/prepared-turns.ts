import { randomHex } from '../../infra/ids/random-pool.ts';

/** A `generate: false` response: its input waits for the turn that continues it. */
type Prepared = { input: unknown[]; previousId: unknown; bytes: number };

/** How many prepared turns a socket keeps (oldest dropped first); clients prepare one before a turn. */
const maxPrepared = 16;

const asItems = (input: unknown): unknown[] =>
  Array.isArray(input) ? input : typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : [];

/**
 * `response.create` with `generate: false` (the SDK's ResponseCreate.generate: "prepare request
 * state without model output; the response ID can be used as previous_response_id"): Codex sends
 * one to warm a socket up. The socket answers it itself, with no upstream call, and a later
 * `response.create` naming its id gets the prepared input in front of its own and continues from
 * what the prepared turn continued. Kept per socket, a few at most, bounded in bytes by the caller.
 */
export class PreparedTurns {
  readonly #turns = new Map<string, Prepared>();
  #bytes = 0;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** JSON bytes of the prepared inputs kept (the socket counts them against max_socket_bytes). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The server events of a prepared (empty, completed) response. */
  prepare(body: Record<string, unknown>): Record<string, unknown>[] {
    const id = `resp_${randomHex(24)}`;
    const input = asItems(body.input);
    const bytes = JSON.stringify(input).length;
    this.#turns.set(id, { input, previousId: body.previous_response_id, bytes });
    this.#bytes += bytes;
    for (const [old, p] of this.#turns) {
      if (this.#turns.size <= maxPrepared && this.#bytes <= this.#maxBytes) break;
      this.#turns.delete(old);
      this.#bytes -= p.bytes;
    }
    const response = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      model: body.model ?? null,
      output: [],
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      tools: body.tools ?? [],
      store: body.store ?? true,
      metadata: body.metadata ?? {},
      usage: {
        input_tokens: 0,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 0,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 0,
      },
    };
    return [
      { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } },
      { type: 'response.completed', sequence_number: 1, response },
    ];
  }

  /** The body as the pipeline must see it: a prepared predecessor's input in front, its predecessor named instead. */
  resolve(body: Record<string, unknown>): Record<string, unknown> {
    const id = body.previous_response_id;
    const prepared = typeof id === 'string' ? this.#turns.get(id) : undefined;
    if (!prepared) return body;
    const { previous_response_id: _, ...rest } = body;
    return {
      ...rest,
      ...(typeof prepared.previousId === 'string' ? { previous_response_id: prepared.previousId } : {}),
      input: [...prepared.input, ...asItems(body.input)],
    };
  }
}
