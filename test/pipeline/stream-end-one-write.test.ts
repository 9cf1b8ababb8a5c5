// The writes of a translated stream (src/families/chat/pipe-stream.ts, src/infra/http/sse-writer.ts):
// the head goes with the first frames; when the upstream's last read carries the last text and the
// finish (as it nearly always does), the usage record is stored first and then the last text and
// the finish's frames go out in one write, not the text at once and the finish a turn later; an
// answer that came in one read is one write in all (issue #28: a write(2) or two less per stream).
// Nothing timed: the writes a response gets are recorded in order, with whether the record was
// stored by then.
import { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import t from 'tap';
import type { ClientStreamEncoder } from '../../adapters/shared/chat-adapter.ts';
import { anthropicMessages } from '../../adapters/anthropic-messages/index.ts';
import { openaiChat } from '../../adapters/openai-chat/index.ts';
import { firstEvent, pipeStream } from '../../src/families/chat/pipe-stream.ts';
import { readSse } from '../../src/infra/upstream/read-sse.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';

const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  frame({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: 'gpt-x',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
const opening = chunk({ role: 'assistant', content: '' });
/** The last read: the last text, the finish, the usage chunk and [DONE], in one upstream write. */
const lastRead =
  chunk({ content: ' world' }) +
  chunk({}, 'stop') +
  frame({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: 'gpt-x',
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  }) +
  'data: [DONE]\n\n';

const request = anthropicMessages.client.decodeRequest(
  { model: 'm', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  { headers: { 'anthropic-version': '2023-06-01' }, params: {}, query: {} },
);

/** A response that records each write (with whether the record was stored by then) and each head flush. */
function recordingResponse(stored: () => boolean) {
  const writes: { text: string; stored: boolean }[] = [];
  const flushes: number[] = [];
  let ended = false;
  const res = {
    socket: null,
    destroyed: false,
    get writableEnded() {
      return ended;
    },
    writeHead: () => res,
    flushHeaders: () => flushes.push(writes.length),
    write: (s: string) => (writes.push({ text: s, stored: stored() }), true),
    end: () => (ended = true),
    on: () => res,
    off: () => res,
    once: () => res,
  };
  return { res: res as unknown as ServerResponse, writes, flushes };
}

/** A Chat upstream (its first read pushed now) piped to a Messages client; the record is stored a turn after it is asked for. */
async function pipe(firstRead: string, encoder = anthropicMessages.client.createStreamEncoder(request)) {
  const upstream = new Readable({ read() {} });
  const events = readSse(upstream, openaiChat.upstream.codec.createStreamDecoder(), (e) => ({
    type: 'error',
    error: new GatewayError('upstream', String(e)),
  }));
  upstream.push(firstRead);
  const { first, rest } = await firstEvent(events);
  let stored = false;
  const out = recordingResponse(() => stored);
  const storeRecord = (): Promise<void> =>
    new Promise((r) =>
      setImmediate(() => {
        stored = true;
        r();
      }),
    );
  const piped = pipeStream(out.res, {}, encoder, first, rest, () => {}, storeRecord);
  return { upstream, piped, ...out };
}

const aTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

t.test('the last text and the finish of one upstream read go out in one write, after the record', async (t) => {
  const { upstream, piped, writes, flushes } = await pipe(opening + chunk({ content: 'Hello' }));
  await aTurn();
  upstream.push(lastRead);
  upstream.push(null);
  t.equal((await piped).outcome, 'ok');
  t.equal(writes.length, 2, 'two writes: the first read, then the last');
  t.same(flushes, [], 'the head went with the first frames');
  t.match(writes[0].text, /^event: message_start\n[^]*"text":"Hello"/);
  t.notOk(writes[0].stored, 'the first frames did not wait for the record');
  const last = writes[1];
  t.ok(last.stored, 'the last write came after the record was stored');
  t.match(last.text, /^event: content_block_delta\ndata: [^\n]*"text":" world"/, 'the last text opens the last write');
  t.match(last.text, /event: message_delta\n/, 'with the finish');
  t.match(last.text, /event: message_stop\n[^]*$/);
});

t.test('an answer that came in one upstream read is one write, head included, after the record', async (t) => {
  const { upstream, piped, writes, flushes } = await pipe(opening + chunk({ content: 'Hello' }) + lastRead);
  upstream.push(null);
  t.equal((await piped).outcome, 'ok');
  t.equal(writes.length, 1, 'one write');
  t.same(flushes, [], 'the head went with the frames');
  t.ok(writes[0].stored, 'after the record');
  t.match(writes[0].text, /^event: message_start\n[^]*"text":"Hello"[^]*" world"[^]*event: message_stop\n/);
});

t.test('a first read that encodes to nothing still sends the head before waiting for the upstream', async (t) => {
  // An encoder that shows nothing until the text (as a format with no opening frame would).
  const messages = anthropicMessages.client.createStreamEncoder(request);
  const quiet: ClientStreamEncoder = { push: (e) => (e.type === 'start' ? [] : messages.push(e)) };
  const { upstream, piped, writes, flushes } = await pipe(opening, quiet);
  await aTurn();
  t.same(flushes, [0], 'the head was sent, before any frame, while the upstream had nothing more');
  upstream.push(chunk({ content: 'Hello' }) + lastRead);
  upstream.push(null);
  t.equal((await piped).outcome, 'ok');
  t.equal(writes.length, 1);
  t.same(flushes, [0], 'sent once');
});
