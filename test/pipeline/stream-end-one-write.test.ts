// The end of a translated stream (src/families/chat/pipe-stream.ts): when the upstream's last read
// carries the last text and the finish (as it nearly always does), the usage record is stored
// first and then the last text, the finish's frames and nothing else go out in one write, not the
// text at once and the finish a turn later (issue #28: a write(2) less per stream). Nothing timed:
// the writes a response gets are recorded in order, with whether the record was stored by then.
import { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import t from 'tap';
import { anthropicMessages } from '../../adapters/anthropic-messages/index.ts';
import { openaiChat } from '../../adapters/openai-chat/index.ts';
import { firstEvent, pipeStream } from '../../src/families/chat/pipe-stream.ts';
import { readSse } from '../../src/infra/upstream/read-sse.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'gpt-x', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A response that records each write, and whether the record was stored when it came. */
function recordingResponse(stored: () => boolean) {
  const writes: { text: string; stored: boolean }[] = [];
  let ended = false;
  const res = {
    socket: null,
    destroyed: false,
    get writableEnded() {
      return ended;
    },
    writeHead: () => res,
    flushHeaders: () => {},
    write: (s: string) => (writes.push({ text: s, stored: stored() }), true),
    end: () => (ended = true),
    on: () => res,
    off: () => res,
    once: () => res,
  };
  return { res: res as unknown as ServerResponse, writes };
}

t.test('the last text and the finish of one upstream read go out in one write, after the record', async (t) => {
  const upstream = new Readable({ read() {} });
  const events = readSse(upstream, openaiChat.upstream.codec.createStreamDecoder(), (e) => ({
    type: 'error',
    error: new GatewayError('upstream', String(e)),
  }));
  upstream.push(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hello' }));
  const { first, rest } = await firstEvent(events);
  let stored = false;
  const { res, writes } = recordingResponse(() => stored);
  const request = anthropicMessages.client.decodeRequest(
    { model: 'm', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] },
    { headers: { 'anthropic-version': '2023-06-01' }, params: {}, query: {} },
  );
  const piped = pipeStream(
    res,
    {},
    anthropicMessages.client.createStreamEncoder(request),
    first,
    rest,
    () => {},
    () =>
      new Promise<void>((r) =>
        setImmediate(() => {
          stored = true;
          r();
        }),
      ),
  );
  await new Promise((r) => setImmediate(r));
  // The last read: the last text, the finish, the usage chunk and [DONE], in one upstream write.
  upstream.push(
    chunk({ content: ' world' }) +
      chunk({}, 'stop') +
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'gpt-x', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n` +
      'data: [DONE]\n\n',
  );
  upstream.push(null);
  const outcome = await piped;
  t.equal(outcome.outcome, 'ok');
  t.equal(writes.length, 2, 'two writes: the first read, then the last');
  t.match(writes[0].text, /"text":"Hello"/);
  t.notOk(writes[0].stored, 'the first frames did not wait for the record');
  const last = writes[1];
  t.ok(last.stored, 'the last write came after the record was stored');
  t.match(last.text, /"text":" world"/, 'the last text is in the last write');
  t.match(last.text, /event: message_delta\n/, 'with the finish');
  t.match(last.text, /event: message_stop\n/);
  t.ok(last.text.indexOf('" world"') < last.text.indexOf('message_stop'), 'in order');
});
