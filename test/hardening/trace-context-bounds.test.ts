// Issue #30, finding 12: on relays a client's `baggage` and an 8 KB `tracestate` reached the
// upstream as they came, and a caller's sampled `traceparent` forced a trace on every request (900
// spans for 300 requests). Now tracestate is cut to 32 members / 512 characters and baggage to
// 180 members / 8192 bytes (whole members, as W3C Trace Context and Baggage say), a malformed
// traceparent is not passed on, and a caller's sampled flag is followed at most
// tracing.max_followed_per_second times a second.
import t from 'tap';
import OpenAI from 'openai';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOtlpReceiver } from '../tracing/otlp-receiver.ts';
import { waitFor } from '../helpers/wait-for.ts';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const sampled = `00-${traceId}-00f067aa0ba902b7-01`;

t.test('relayed tracestate and baggage are bounded; a malformed traceparent is dropped', async (t) => {
  const { gw, up } = await gatewayWithEmulators(t, {
    upstreams: { chat: 'chat' },
    models: { relay: { routes: [{ provider: 'chat', model: 'gpt-up' }] } },
  });
  // 8 KB of tracestate: 300 members of about 27 characters.
  const tracestate = Array.from({ length: 300 }, (_, i) => `vendor${i}=${'v'.repeat(20)}`).join(',');
  // Baggage past the member limit: 200 members.
  const baggage = Array.from({ length: 200 }, (_, i) => `k${i}=b`).join(',');
  const send = (headers: Record<string, string>) =>
    new OpenAI({
      apiKey: TEST_KEY,
      baseURL: `${gw.url}/v1`,
      maxRetries: 0,
      defaultHeaders: headers,
    }).chat.completions.create({ model: 'relay', messages: [{ role: 'user', content: 'hi' }] });
  await send({ tracestate, baggage, traceparent: sampled });
  const got = up.chat.requests.at(-1)!.headers;
  const ts = String(got.tracestate);
  t.ok(ts.length <= 512, `tracestate is ${ts.length} characters`);
  t.ok(ts.split(',').length <= 32, 'at most 32 members');
  t.ok(tracestate.startsWith(ts), 'whole members, the left-most (newest) kept');
  const bg = String(got.baggage);
  t.ok(Buffer.byteLength(bg) <= 8192, `baggage is ${Buffer.byteLength(bg)} bytes`);
  t.ok(bg.split(',').length <= 180, 'at most 180 members');
  t.ok(baggage.startsWith(bg), 'whole members');
  // Baggage past the byte limit: 100 members of 90 bytes, 9 KB.
  const heavy = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(3, '0')}=${'b'.repeat(85)}`).join(',');
  await send({ baggage: heavy });
  const hb = String(up.chat.requests.at(-1)!.headers.baggage);
  t.ok(Buffer.byteLength(hb) <= 8192, `baggage is ${Buffer.byteLength(hb)} bytes`);
  t.ok(hb.length > 8000 && heavy.startsWith(hb), 'whole members up to the limit');
  t.equal(got.traceparent, sampled, 'a well-formed traceparent passes');

  await send({ traceparent: `00-${traceId}-00f067aa0ba902b7-01-${'x'.repeat(2000)}`, tracestate: 'Bad Key=1,good=1' });
  const second = up.chat.requests.at(-1)!.headers;
  t.equal(second.traceparent, undefined, 'a malformed traceparent is not passed on');
  t.equal(second.tracestate, 'good=1', 'a malformed member is dropped, not the rest');

  await send({ baggage: 'userId=alice,isProduction=false' });
  t.equal(up.chat.requests.at(-1)!.headers.baggage, 'userId=alice,isProduction=false', 'small baggage passes as is');
});

t.test("a caller's sampled traceparent forces at most tracing.max_followed_per_second traces", async (t) => {
  const [receiver, chat] = await Promise.all([startOtlpReceiver(), startOpenAIChatUpstream()]);
  t.teardown(() => Promise.all([receiver.close(), chat.close()]));
  const gw = await startInProcessGateway(
    testConfig({
      providers: { chat: { type: 'openai', base_url: chat.url, api_key: 'sk-up-chat', api: 'chat_completions' } },
      models: { translated: { routes: [{ provider: 'chat', model: 'gpt-up' }] } },
      tracing: { endpoint: receiver.url, export_interval_ms: 50, sample_ratio: 0, max_followed_per_second: 2 },
    }),
  );
  t.teardown(() => gw.stop());
  const client = new OpenAI({
    apiKey: TEST_KEY,
    baseURL: `${gw.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { traceparent: sampled },
  });
  const requests = 40;
  const began = Date.now();
  await Promise.all(
    Array.from({ length: requests }, () =>
      client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }),
    ),
  );
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(began / 1000) + 1;
  // At least one is followed; the rest wait for their spans to be exported.
  await waitFor('the followed traces are exported', async () =>
    receiver.spans.some((s) => s.kind === 2) ? true : undefined,
  );
  await new Promise((r) => setTimeout(r, 300));
  const roots = receiver.spans.filter((s) => s.kind === 2 && s.traceId === traceId);
  t.ok(roots.length >= 1, 'the caller’s flag is still followed');
  t.ok(roots.length <= 2 * seconds, `${roots.length} traces for ${requests} requests over ${seconds} second(s)`);
  // An unfollowed request still carries the caller's trace id upstream, with the sampled flag off.
  await new OpenAI({
    apiKey: TEST_KEY,
    baseURL: `${gw.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { traceparent: sampled },
  }).chat.completions.create({ model: 'translated', messages: [{ role: 'user', content: 'hi' }] });
  t.match(String(chat.requests.at(-1)!.headers.traceparent), new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
});
