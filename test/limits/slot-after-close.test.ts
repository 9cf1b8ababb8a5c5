// A key's concurrency slot taken after its client had already left was never released: the
// response's 'close' had come and gone while the slot was being taken (a Redis round trip, or the
// budget's store read before it), so the listener meant to release it never ran, and with Redis its
// lease was renewed forever. Each such request cost the key one slot for good, until a key of
// concurrency N refused everything. Now the slot is released at once and the request ends there,
// as the chat handler ends one whose client left before its upstream call (499, no call, nothing billed).
import t from 'tap';
import { EventEmitter } from 'node:events';
import { enforceKeyLimits } from '../../src/services/access/key-limits.ts';
import { MemoryRateCounter } from '../../src/services/limits/memory-rate-counter.ts';
import type { RateCounter } from '../../src/services/limits/rate-counter.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';

/** A chat request of a key with one concurrency slot, as `enforceKeyLimits` reads it, and its response. */
function limitedRequest(rateCounter: RateCounter): { res: EventEmitter & { closed: boolean }; ctx: unknown } {
  const res = Object.assign(new EventEmitter(), { closed: false });
  const ctx = {
    method: 'POST',
    path: '/v1/chat/completions',
    res,
    state: {
      key: { id: 'k', workspace: 'w', limits: { rpm: 0, tpm: 0, concurrency: 1 } },
      services: { rateCounter, log: { warn: () => {} } },
    },
  };
  return { res, ctx };
}

t.test('a slot taken after the client left is released, and no handler runs', async (t) => {
  const counter = new MemoryRateCounter();
  let answer!: () => void;
  const storeAnswers = new Promise<void>((ok) => (answer = ok));
  // A store whose answer arrives later (Redis): the client leaves meanwhile.
  const slow: RateCounter = {
    take: (key, amount, limit, windowMs) => counter.take(key, amount, limit, windowMs),
    add: (key, amount, windowMs, window) => counter.add(key, amount, windowMs, window),
    acquireSlot: async (key, limit) => {
      await storeAnswers;
      return counter.acquireSlot(key, limit);
    },
    close: async () => {},
  };
  const { res, ctx } = limitedRequest(slow);
  let handled = false;
  const admitted = enforceKeyLimits(ctx as never, async () => {
    handled = true;
  });
  res.closed = true;
  res.emit('close');
  answer();
  const err: unknown = await admitted.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof GatewayError && err.status === 499, 'the request ends as one whose client left (499)');
  t.equal(handled, false, 'no handler runs for a client that has left');
  const again = await counter.acquireSlot('k', 1);
  t.ok(again, 'the slot is free again');
  again?.release();
});

t.test('a slot taken while the client is there is still held to the close', async (t) => {
  const counter = new MemoryRateCounter();
  const { res, ctx } = limitedRequest(counter);
  let handled = false;
  await enforceKeyLimits(ctx as never, async () => {
    handled = true;
  });
  t.equal(handled, true);
  t.equal(await counter.acquireSlot('k', 1), undefined, 'held while the response is open');
  res.closed = true;
  res.emit('close');
  const again = await counter.acquireSlot('k', 1);
  t.ok(again, 'released at the close');
});

// The memory counter answers at once (no await): a client that left before admission reached the
// limits (while the budget's store was read) is still seen, and its slot is not kept.
t.test('an in-process counter: a client gone before its slot was taken gets a 499 and no slot is kept', async (t) => {
  const counter = new MemoryRateCounter();
  const { res, ctx } = limitedRequest(counter);
  res.closed = true;
  let handled = false;
  const err: unknown = await enforceKeyLimits(ctx as never, async () => {
    handled = true;
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof GatewayError && err.status === 499, 'the request ends as one whose client left (499)');
  t.equal(handled, false, 'no handler runs');
  const again = counter.acquireSlotNow('k', 1);
  t.ok(again, 'the slot is free');
});

t.test('an in-process counter refuses the slot over its limit and the rpm over its own, as a rejection', async (t) => {
  const counter = new MemoryRateCounter();
  const first = limitedRequest(counter);
  await enforceKeyLimits(first.ctx as never, async () => {});
  const second = limitedRequest(counter);
  const err: unknown = await enforceKeyLimits(second.ctx as never, async () => {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof GatewayError && err.kind === 'rate-limit', 'the second concurrent request gets a 429');
  first.res.closed = true;
  first.res.emit('close');
  const rpm = limitedRequest(counter);
  (rpm.ctx as { state: { key: { limits: { rpm: number } } } }).state.key.limits.rpm = 1;
  await enforceKeyLimits(rpm.ctx as never, async () => {});
  rpm.res.emit('close');
  const over = limitedRequest(counter);
  (over.ctx as { state: { key: { limits: { rpm: number } } } }).state.key.limits.rpm = 1;
  const err2: unknown = await enforceKeyLimits(over.ctx as never, async () => {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err2 instanceof GatewayError && err2.kind === 'rate-limit', 'the second request in the minute gets a 429');
  t.ok(counter.acquireSlotNow('k', 1), 'the refused request kept no slot');
});
