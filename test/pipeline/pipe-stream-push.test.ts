// pipe-stream taken by the push reader's call-back (src/families/chat/pipe-stream.ts, `onReady` in
// src/infra/upstream/read-sse.ts; issue #28: no promise per upstream read). Its ends, read by read:
// a reader failure with no error event, an encoder that throws, a client that left while the pipe
// waited for the upstream, and a response whose end throws: each settles the pipe's promise with
// the outcome the awaiting loop gave, and the upstream is released when the client left.
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { anthropicMessages } from '../../adapters/anthropic-messages/index.ts';
import { openaiChat } from '../../adapters/openai-chat/index.ts';
import type { ClientStreamEncoder } from '../../adapters/shared/chat-adapter.ts';
import { firstEvent, pipeStream } from '../../src/families/chat/pipe-stream.ts';
import { PushedSse } from '../../src/infra/upstream/read-sse.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';

const chunk = (content: string, finish: string | null = null): Buffer =>
  Buffer.from(
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`,
  );
const request = anthropicMessages.client.decodeRequest(
  { model: 'm', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  { headers: { 'anthropic-version': '2023-06-01' }, params: {}, query: {} },
);
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

function response(opts: { endThrows?: boolean } = {}) {
  const writes: string[] = [];
  const state = { destroyed: false, ended: false };
  const res = {
    socket: null,
    get destroyed() {
      return state.destroyed;
    },
    get writableEnded() {
      return state.ended;
    },
    writeHead: () => res,
    flushHeaders: () => {},
    write: (s: string) => (writes.push(s), true),
    end: () => {
      if (opts.endThrows) throw new Error('end failed');
      state.ended = true;
    },
    on: () => res,
    off: () => res,
    once: () => res,
  };
  return { res: res as unknown as ServerResponse, writes, state };
}

/** A push reader over a stub call (no `onError` unless given), its first read pushed. */
async function start(onError?: (e: unknown) => never) {
  const control = {
    destroyed: 0,
    pause() {},
    resume() {},
    destroy() {
      this.destroyed++;
    },
  };
  const events = new PushedSse(control, openaiChat.upstream.codec.createStreamDecoder(), onError);
  events.data(chunk('Hello'));
  const { first, rest } = await firstEvent(events);
  return { control, events, first, rest };
}

t.test('a reader failure with no error event: an error frame, a local error, the pipe settled', async (t) => {
  const { events, first, rest } = await start();
  const { res, writes } = response();
  const piped = pipeStream(res, {}, anthropicMessages.client.createStreamEncoder(request), first, rest, () => {});
  await turn();
  events.data(chunk(' world'));
  await turn();
  events.fail(new GatewayError('upstream', 'socket cut'));
  const r = await piped;
  t.equal(r.outcome, 'error');
  t.equal(r.local, true);
  t.match(writes.join(''), /" world"[^]*event: error\n/);
});

t.test('an encoder that throws on a later read: an error frame, a local error', async (t) => {
  const { events, first, rest } = await start();
  const { res, writes } = response();
  const inner = anthropicMessages.client.createStreamEncoder(request);
  let n = 0;
  const encoder: ClientStreamEncoder = {
    push: (e) => {
      if (++n === 3) throw new Error('encoder broke');
      return inner.push(e);
    },
  };
  const piped = pipeStream(res, {}, encoder, first, rest, () => {});
  await turn();
  events.data(Buffer.concat([chunk(' a'), chunk(' b')]));
  const r = await piped;
  t.equal(r.outcome, 'error');
  t.equal(r.local, true);
  t.match(writes.join(''), /event: error\n/);
});

t.test('the client left while the pipe waited: client_closed at the next read, the upstream released', async (t) => {
  const { control, events, first, rest } = await start();
  const { res, writes, state } = response();
  const piped = pipeStream(res, {}, anthropicMessages.client.createStreamEncoder(request), first, rest, () => {});
  await turn();
  const before = writes.length;
  state.destroyed = true;
  events.data(chunk(' world'));
  const r = await piped;
  t.equal(r.outcome, 'client_closed');
  t.equal(control.destroyed, 1, 'the upstream call destroyed');
  t.equal(writes.length, before, 'nothing written after the client left');
});

t.test('a response whose end throws: the pipe rejects, it does not hang', async (t) => {
  const { events, first, rest } = await start();
  const { res } = response({ endThrows: true });
  const piped = pipeStream(res, {}, anthropicMessages.client.createStreamEncoder(request), first, rest, () => {});
  await turn();
  events.data(Buffer.concat([chunk('', 'stop'), Buffer.from('data: [DONE]\n\n')]));
  events.end();
  await t.rejects(piped, /end failed/);
});
