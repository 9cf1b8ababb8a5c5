// The IR events an upstream stream decoder has made for the frame at hand. The chat and Gemini
// decoders emit from many small methods (one per kind of delta or part), push here, and hand the
// batch over once per frame.
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { upToError } from './up-to-error.ts';

/** A frame that made no event (a role chunk, the usage chunk): one shared empty batch. */
const none: StreamEvent[] = [];

export class DecodedEvents {
  /**
   * The batch: one array for the whole stream, refilled frame by frame (issue #28: an array per
   * upstream chunk was ~56 bytes of the ~700 polygate's stream code allocates a chunk). Never
   * emptied to length 0, which would drop its backing store and make the next push allocate one.
   */
  readonly #events: StreamEvent[] = [];
  /** Events of the frame at hand, at the start of `#events`. */
  #count = 0;
  #failed = false;
  /** A `finish` or `error` was emitted: the stream is over for the IR, later frames are ignored. */
  over = false;

  push(event: StreamEvent): void {
    this.#events[this.#count++] = event;
  }

  /** An error ends the stream: nothing the upstream sends after it reaches the client. */
  fail(error: GatewayError): void {
    this.over = true;
    this.#failed = true;
    this.push({ type: 'error', error });
  }

  /**
   * The frame's events, up to the first error; the batch starts empty again. The array is the
   * decoder's own, valid until its next `push` or `end` (UpstreamStreamDecoder): callers read it
   * at once and never add to it.
   */
  take(): StreamEvent[] {
    const n = this.#count;
    if (n === 0) return none;
    this.#count = 0;
    const out = this.#events;
    // Trimmed in place (n ≥ 1): the events of a longer earlier batch past n are dropped.
    if (out.length !== n) out.length = n;
    return this.#failed ? upToError(out) : out;
  }
}
