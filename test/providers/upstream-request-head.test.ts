// The head of a translated call's upstream request, byte for byte (issue #28, session 13): the
// provider sends a header set built once per Accept when neither the format nor a span adds headers,
// and a set built per call otherwise. Either way the head is what it always was: content-type,
// accept, the operator's headers (their accept in the second place), the credentials, the span's
// traceparent, in that order.
import { createServer, type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { Pool } from 'undici';
import { anthropicClientCodec } from '../../adapters/anthropic-messages/index.ts';
import { openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import type { ProviderConfig } from '../../src/infra/config/gateway-config.ts';
import { HttpChatProvider } from '../../src/services/providers/http-chat-provider.ts';
import type { UpstreamTracer } from '../../src/infra/tracing/upstream-span.ts';

const answer = JSON.stringify({
  id: 'x',
  object: 'chat.completion',
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const sse =
  'data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

/** A raw server keeping each request's head (the header lines, host and length left out). */
async function capturingServer(t: Test): Promise<{ base: string; heads: string[][] }> {
  const heads: string[][] = [];
  const server = createServer((sock) => {
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + len) return;
      const lines = buf.slice(0, end).split('\r\n').slice(1);
      heads.push(lines.filter((l) => !/^(host|content-length|connection):/i.test(l)));
      const stream = buf.includes('"stream":true');
      buf = '';
      const body = stream ? sse : answer;
      sock.write(
        `HTTP/1.1 200 OK\r\ncontent-type: ${stream ? 'text/event-stream' : 'application/json'}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => server.close());
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, heads };
}

const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const tracer = { upstream: () => ({ headers: { traceparent }, end() {} }) } as unknown as UpstreamTracer;

t.test('the same head whether the header set is built once or per call', async (t) => {
  const { base, heads } = await capturingServer(t);
  const pool = new Pool(base);
  t.teardown(() => pool.close());
  const request = anthropicClientCodec.decodeRequest(
    { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
    { headers: { 'anthropic-version': '2023-06-01' }, params: {}, query: {} },
  );
  const call = async (cfg: ProviderConfig, stream: boolean, trace?: UpstreamTracer): Promise<void> => {
    const p = new HttpChatProvider('p', cfg, openaiChatUpstreamCodec, pool, { firstByteMs: 5000, idleMs: 5000 });
    const opts = { signal: new AbortController().signal, warn: () => {}, trace };
    if (!stream) await p.complete(request, 'gpt-x', opts);
    else for await (const _ of await p.openStream({ ...request, stream: true }, 'gpt-x', opts));
  };
  const plain = { type: 'openai', base_url: `${base}/v1`, api_key: 'sk-test' } as ProviderConfig;
  const operator = { ...plain, headers: { 'x-extra': 'v', accept: 'application/x-op' } } as ProviderConfig;
  // Twice each: the second call of a provider sends its set as built by the first.
  for (let i = 0; i < 2; i++) {
    await call(plain, false);
    await call(plain, true);
    await call(plain, false, tracer);
    await call(operator, false);
    await call(operator, true, tracer);
  }
  const json = ['content-type: application/json', 'accept: application/json', 'authorization: Bearer sk-test'];
  const expected = [
    json,
    ['content-type: application/json', 'accept: text/event-stream', 'authorization: Bearer sk-test'],
    [...json, `traceparent: ${traceparent}`],
    ['content-type: application/json', 'accept: application/x-op', 'x-extra: v', 'authorization: Bearer sk-test'],
    [
      'content-type: application/json',
      'accept: application/x-op',
      'x-extra: v',
      'authorization: Bearer sk-test',
      `traceparent: ${traceparent}`,
    ],
  ];
  t.same(heads, [...expected, ...expected]);
});
