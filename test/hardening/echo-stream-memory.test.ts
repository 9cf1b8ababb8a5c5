// Finding: echo built its whole answer, cut into an array of every word, before streaming: 250
// concurrent 1 MB streams whose clients stopped reading took the heap to 4 GB (~15 MB per 1 MB).
// Now words are cut as the stream is read (pipeStream reads only when the client's socket has
// drained), so an open stream holds its place in the text, not a copy of it. Asserted on the heap
// after a forced collection, with streams opened and left unread, with a wide margin: no timing.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { echoStreamOpener, echoStreamRequest } from './echo-streams.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// 1 MB of short words: the shape that made the per-word array largest.
const request = echoStreamRequest('word '.repeat(200_000));

t.test('20 unread 1 MB echo streams hold far less than 1 MB each', async (t) => {
  const openStream = echoStreamOpener(request);
  const open: AsyncIterator<StreamEvent>[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 20; i++) {
    const it = (await openStream())[Symbol.asyncIterator]();
    // start, text-start, the first word: the stream is under way, then its reader stops.
    for (let k = 0; k < 3; k++) await it.next();
    open.push(it);
  }
  gc();
  const perStream = (process.memoryUsage().heapUsed - before) / open.length;
  t.ok(perStream < 256 * 1024, `${Math.round(perStream / 1024)} KiB of heap per open stream`);
  const third = await open[0].next();
  t.same(third.value, { type: 'text-delta', index: 0, text: 'word ' }, 'the streams still go on word by word');
  for (const it of open) await it.return?.();
});
