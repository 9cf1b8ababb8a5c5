// The IR events an upstream stream decoder has made for the frame at hand. The chat and Gemini
// decoders emit from many small methods (one per kind of delta or part), push here, and hand the
// batch over once per frame (one array per stream: adapters/shared/batch.ts).
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { Batch } from './batch.ts';
import { upToError } from './up-to-error.ts';

export class DecodedEvents extends Batch<StreamEvent> {
  #failed = false;
  /** A `finish` or `error` was emitted: the stream is over for the IR, later frames are ignored. */
  over = false;

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
  override take(): StreamEvent[] {
    const out = super.take();
    return this.#failed ? upToError(out) : out;
  }
}
