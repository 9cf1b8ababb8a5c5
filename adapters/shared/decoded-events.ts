// The IR events an upstream stream decoder has made for the frame at hand. The chat and Gemini
// decoders emit from many small methods (one per kind of delta or part), push here, and hand the
// batch over once per frame.
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { upToError } from './up-to-error.ts';

/** A frame that made no event (a role chunk, the usage chunk): one shared empty batch. */
const none: StreamEvent[] = [];

export class DecodedEvents {
  /** Made with the frame's first event: most frames make one, and many none (issue #28). */
  #events: StreamEvent[] | undefined;
  #failed = false;
  /** A `finish` or `error` was emitted: the stream is over for the IR, later frames are ignored. */
  over = false;

  push(event: StreamEvent): void {
    if (this.#events === undefined) this.#events = [event];
    else this.#events.push(event);
  }

  /** An error ends the stream: nothing the upstream sends after it reaches the client. */
  fail(error: GatewayError): void {
    this.over = true;
    this.#failed = true;
    this.push({ type: 'error', error });
  }

  /** The frame's events, up to the first error; the batch starts empty again. Callers must not add to it. */
  take(): StreamEvent[] {
    const out = this.#events;
    if (out === undefined) return none;
    this.#events = undefined;
    return this.#failed ? upToError(out) : out;
  }
}
