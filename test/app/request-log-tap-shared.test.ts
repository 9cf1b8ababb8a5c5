// The request log's content tap (src/app/request-log-entry.ts) stored two closures per response as
// its `write` and `end`, the retention pattern bench/RESULTS.md ("Session 9") removed from the
// event-stream watch: every request's objects survived V8's young-generation GCs until the next
// full one. The tap now installs one shared `write` and `end`, its state on the response under a
// symbol; what it captures is asserted end to end in test/observability/request-log-content.test.ts.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import t from 'tap';
import type Koa from 'koa';
import { noteRequest } from '../../src/app/request-log-entry.ts';
import type { RequestState } from '../../src/services/runtime/request-state.ts';

function tapped(): ServerResponse {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  const state = { runtime: { config: { usage: { capture_content: { ws1: { max_bytes: 1024 } } } } } };
  noteRequest({ res } as unknown as Koa.Context, state as unknown as RequestState, 0, undefined);
  return res;
}

t.test('every response gets the same write and end, not closures of its own', async (t) => {
  const a = tapped();
  const b = tapped();
  t.not(a.write, ServerResponse.prototype.write, 'the answer is tapped');
  t.equal(a.write, b.write, 'one shared write');
  t.equal(a.end, b.end, 'one shared end');
});
