import t from 'tap';
import { DecodedEvents } from '../../../adapters/shared/decoded-events.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';

// DecodedEvents refills one array frame by frame (issue #28): each batch must hold exactly the
// frame's events, however many the frame before it held.
const text = (i: number): StreamEvent => ({ type: 'text-delta', index: 0, text: `t${i}` });

t.test("each batch is its frame's events, after longer and empty batches alike", async (t) => {
  const out = new DecodedEvents();
  const sizes = [1, 3, 1, 0, 2, 0, 0, 5, 1, 4, 2, 1];
  let n = 0;
  for (const size of sizes) {
    const want: StreamEvent[] = [];
    for (let i = 0; i < size; i++) {
      const e = text(n++);
      want.push(e);
      out.push(e);
    }
    t.strictSame([...out.take()], want, `a frame of ${size}`);
  }
  t.strictSame(out.take(), [], 'nothing pushed since the last batch');
});

t.test('an error ends the batch, however long the batch before it was', async (t) => {
  const out = new DecodedEvents();
  for (let i = 0; i < 4; i++) out.push(text(i));
  t.equal(out.take().length, 4);
  out.push(text(4));
  out.fail(new GatewayError('upstream', 'cut'));
  out.push(text(5));
  const batch = out.take();
  t.equal(batch.length, 2);
  t.match(batch[1], { type: 'error', error: { message: 'cut' } });
  t.ok(out.over);
});
