// Finding 5, event-loop half (bench/attack-suite.ts): 250 concurrent echo streams whose sockets
// took every write held the event loop for 700 ms at a time. Each stream yielded every 256 words
// with its own setImmediate, but the immediates of all waiting streams run in one check phase, so
// one turn of the loop carried every stream's 256 words. Now echo streams queue for turns, one
// per loop turn. Asserted by counting words between two turns of a ticker that re-queues itself
// with setImmediate (what any other request's I/O waits behind): no timing.
import t from 'tap';
import { onEveryLoopTurn } from '../helpers/loop-turns.ts';
import { echoStreamOpener, echoStreamRequest } from './echo-streams.ts';

t.test('50 concurrent echo streams: one stream turn (256 words) between two turns of the loop', async (t) => {
  const openStream = echoStreamOpener(echoStreamRequest('word '.repeat(5_000)));
  let words = 0;
  const streams = await Promise.all(Array.from({ length: 50 }, openStream));
  const atTick: number[] = [];
  const stop = onEveryLoopTurn(() => atTick.push(words));
  // Readers that take every event at once, like a socket that accepts every write.
  await Promise.all(
    streams.map(async (s) => {
      for await (const e of s) if (e.type === 'text-delta') words++;
    }),
  );
  stop();
  t.equal(words, 50 * 5_000, 'every word was streamed');
  // From the start: streams that begin together queue for their first words too.
  const between = atTick.slice(1).map((w, i) => w - atTick[i]);
  const most = Math.max(...between);
  t.ok(most <= 2 * 256, `at most ${most} words between two loop turns (50 streams would make it ${50 * 256})`);
});
