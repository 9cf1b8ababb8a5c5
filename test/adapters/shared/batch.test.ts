import t from 'tap';
import { Batch } from '../../../adapters/shared/batch.ts';
import { MessagesStreamEncoder } from '../../../adapters/anthropic-messages/messages-stream-encoder.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { finishEvent } from '../stream-events.ts';

// One array per stream (issue #28): each take is exactly what was pushed since the last one.
t.test('each take holds what was pushed since the last, after longer and empty takes alike', async (t) => {
  const batch = new Batch<number>();
  let n = 0;
  for (const size of [1, 3, 1, 0, 2, 0, 0, 5, 1, 4, 2, 1]) {
    const want: number[] = [];
    for (let i = 0; i < size; i++) {
      want.push(n);
      batch.push(n++);
    }
    t.strictSame([...batch.take()], want, `a take of ${size}`);
  }
});

t.test('only is a take of one item, between longer and empty takes', async (t) => {
  const batch = new Batch<number>();
  batch.push(1);
  batch.push(2);
  batch.push(3);
  t.strictSame([...batch.take()], [1, 2, 3]);
  t.strictSame([...batch.only(4)], [4]);
  batch.push(5);
  batch.push(6);
  t.strictSame([...batch.take()], [5, 6]);
  t.strictSame(batch.take(), []);
  t.strictSame([...batch.only(7)], [7]);
});

t.test('clear forgets what a call that threw half-way pushed', async (t) => {
  const batch = new Batch<string>();
  batch.push('a');
  batch.push('b');
  batch.clear();
  batch.push('c');
  t.strictSame([...batch.take()], ['c']);
  t.strictSame(batch.take(), []);
});

t.test("the Messages encoder's pushes each give their own frames, through one array", async (t) => {
  const enc = new MessagesStreamEncoder({ model: 'm', messages: [] } as unknown as ChatRequest);
  const events: StreamEvent[] = [
    { type: 'start', id: 'x' },
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, text: 'hi' },
    { type: 'text-delta', index: 0, text: ' there' },
    { type: 'text-end', index: 0 },
    finishEvent('stop', 'stop', { inputTokens: 7, outputTokens: 2 }),
  ] as StreamEvent[];
  const names = events.map((e) => enc.push(e).map((f) => f.event));
  t.strictSame(names, [
    ['message_start'],
    ['content_block_start'],
    ['content_block_delta'],
    ['content_block_delta'],
    ['content_block_stop'],
    ['message_delta', 'message_stop'],
  ]);
  t.strictSame(enc.push({ type: 'text-delta', index: 0, text: 'late' } as StreamEvent), [], 'nothing after the finish');
});
