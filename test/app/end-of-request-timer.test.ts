// A response that closed before its handler settled (a client that left) scheduled the late log
// line's 10 s timer, and settling never cleared it: every such request's context, bodies and answer
// stayed reachable for 10 s after it was done. Asserted with a forced collection: the request's
// context is collectable once the handler has settled (no timing).
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type Koa from 'koa';
import { endOfRequest } from '../../src/app/end-of-request.ts';
import type { ChatState } from '../../src/services/runtime/request-state.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** One request whose client left before its handler settled; only a WeakRef to its context is kept. */
function leftEarly(lines: unknown[]): WeakRef<object> {
  const ctx = {
    status: 200,
    method: 'POST',
    path: '/v1/chat/completions',
    state: {},
    is: () => false,
    // The client left before the answer was written.
    res: { writableFinished: false },
    // What a request holds: its bodies.
    held: Buffer.alloc(1024 * 1024),
  };
  const state = { requestId: 'r-1', timings: {}, runtime: { config: { log: { content: false } } } };
  const end = endOfRequest(ctx as unknown as Koa.Context, state as unknown as ChatState, {
    started: performance.now(),
    format: undefined,
    familyLabel: 'chat',
    ops: true,
    stream: undefined,
    log: {} as never,
    accessLog: (_level: unknown, line: unknown) => lines.push(line),
  });
  end.closed();
  end.settled();
  return new WeakRef(ctx);
}

t.test('a request whose client left first is not held once its handler settled', async (t) => {
  const lines: unknown[] = [];
  const ref = leftEarly(lines);
  t.equal(lines.length, 1, 'its line was written when the handler settled');
  await new Promise((ok) => setImmediate(ok));
  gc();
  t.equal(ref.deref(), undefined, 'the request was collected (no timer holds it)');
  t.equal(lines.length, 1, 'and written once');
});
