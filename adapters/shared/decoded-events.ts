// The IR events an upstream stream decoder has made for the frame at hand. The chat and Gemini
// decoders emit from many small methods (one per kind of delta or part), push here, and hand the
// batch over once per frame.
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { upToError } from './up-to-error.ts';

export class DecodedEvents {
  #events: StreamEvent[] = [];
  /** A `finish` or `error` was emitted: the stream is over for the IR, later frames are ignored. */
  over = false;

  push(event: StreamEvent): void {
    this.#events.push(event);
  }

  /** An error ends the stream: nothing the upstream sends after it reaches the client. */
  fail(error: GatewayError): void {
    this.over = true;
    this.#events.push({ type: 'error', error });
  }

  /** The frame's events, up to the first error; the batch starts empty again. */
  take(): StreamEvent[] {
    const out = this.#events;
    this.#events = [];
    return upToError(out);
  }
}
