// OpenTelemetry traces (docs/usage-and-tracing.md): a Messages stream translated to a Chat
// Completions upstream after its first route failed, exported over OTLP/HTTP to a receiver on
// loopback. The span tree (request → decode, two route attempts each with its upstream call,
// stream), the GenAI attributes, the client's traceparent continued and passed upstream, and no
// message content unless log.content is on. The gateway runs in the test's process, but for the
// SIGTERM drain, which signals a spawned one.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';

const [receiver, fault, chat] = await Promise.all([
  startOtlpReceiver(),
  startFaultUpstream(),
  startOpenAIChatUpstream(),
]);
t.teardown(() => Promise.all([receiver.close(), fault.close(), chat.close()]));

const config = (content: boolean): Record<string, unknown> =>
  testConfig({
    providers: {
      broken: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up-broken', api: 'chat_completions' },
      good: { type: 'openai', base_url: chat.url, api_key: 'sk-up-good', api: 'chat_completions' },
    },
    models: {
      sonnet: {
        strategy: 'fallback',
        routes: [
          { provider: 'broken', model: 'first-choice', retries: { max_retries: 0 } },
          { provider: 'good', model: 'second-choice' },
        ],
      },
    },
    tracing: { endpoint: receiver.url, export_interval_ms: 50, service_name: 'polygate-test', sample_ratio: 1 },
    log: { level: 'info', content },
  });

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const clientSpan = '00f067aa0ba902b7';
/** The Anthropic SDK calling `gw` from inside the caller's trace `traceId` (sampled unless `flags` is 00). */
const clientInTrace = (
  gw: { url: string },
  traceId: string,
  flags = '01',
  extra: Record<string, string> = {},
): Anthropic =>
  new Anthropic({
    baseURL: gw.url,
    apiKey: TEST_KEY,
    maxRetries: 0,
    defaultHeaders: { traceparent: `00-${traceId}-${clientSpan}-${flags}`, ...extra },
  });
const SECRET = 'the-secret-word-is-marmalade';

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] =>
  spans.filter((s) => s.parentSpanId === parent.spanId).sort((a, b) => (a.start < b.start ? -1 : 1));

t.test('a translated stream with a fallback: span tree, GenAI attributes, traceparent', async (t) => {
  const gw = await startInProcessGateway(config(false));
  t.teardown(() => gw.stop());
  fault.reset();
  fault.script({ kind: 'status', status: 500, message: 'upstream broke' });
  const client = clientInTrace(gw, traceId, '01', { tracestate: 'vendor=opaque' });
  const msg = await client.messages
    .stream({
      model: 'sonnet',
      max_tokens: 64,
      system: 'be brief',
      messages: [{ role: 'user', content: `repeat ${SECRET}` }],
    })
    .finalMessage();
  t.equal(msg.content[0].type, 'text');

  const spans = await waitFor('the request span exported', async () => {
    const mine = receiver.spans.filter((s) => s.traceId === traceId);
    return mine.some((s) => s.parentSpanId === clientSpan) ? mine : undefined;
  });
  const root = spans.find((s) => s.parentSpanId === clientSpan)!;
  t.equal(root.name, 'POST /v1/messages', 'the server span continues the client trace');
  t.equal(root.kind, 2, 'SERVER');
  t.equal(root.resource['service.name'], 'polygate-test');
  t.match(root.attributes, {
    'http.request.method': 'POST',
    'http.route': '/v1/messages',
    'http.response.status_code': 200,
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'sonnet',
    'gen_ai.response.model': 'second-choice',
    'gen_ai.request.max_tokens': 64,
    'gen_ai.usage.input_tokens': msg.usage.input_tokens,
    'gen_ai.usage.output_tokens': msg.usage.output_tokens,
    'polygate.family': 'messages',
    'polygate.format.in': 'anthropic-messages',
    'polygate.format.out': 'openai-chat',
    'polygate.mode': 'translate',
    'polygate.provider': 'good',
    'polygate.attempts': 2,
    'polygate.stream': true,
    'polygate.key.id': 'test',
  });
  t.type(root.attributes['polygate.time_to_first_byte_ms'], 'number');

  const kids = childrenOf(spans, root);
  t.same(
    kids.map((s) => s.name),
    ['polygate.decode', 'polygate.route_attempt', 'polygate.route_attempt', 'polygate.stream'],
    'decode, two attempts, the stream',
  );
  const [decode, failed, served, stream] = kids;
  t.ok(decode.end <= failed.start, 'decode ends before the first attempt');
  t.match(failed.attributes, {
    'polygate.provider': 'broken',
    'gen_ai.response.model': 'first-choice',
    'polygate.attempt': 1,
  });
  t.equal(failed.status, 2, 'the failed attempt is an error');
  t.match(served.attributes, { 'polygate.provider': 'good', 'gen_ai.response.model': 'second-choice' });
  t.equal(served.status, 0);
  t.match(stream.attributes, { 'polygate.stream.outcome': 'ok' });

  const [failedCall] = childrenOf(spans, failed);
  t.match(failedCall, {
    name: 'chat first-choice',
    kind: 3,
    status: 2,
    attributes: { 'http.response.status_code': 500, 'gen_ai.request.model': 'first-choice' },
  });
  const [call] = childrenOf(spans, served);
  t.match(call, {
    name: 'chat second-choice',
    kind: 3,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'http.response.status_code': 200,
      'polygate.format.out': 'openai-chat',
    },
  });

  const upstreamHeaders = chat.requests.at(-1)!.headers;
  t.equal(
    upstreamHeaders.traceparent,
    `00-${traceId}-${call.spanId}-01`,
    'the upstream gets the trace, parented on the upstream call span',
  );
  t.equal(upstreamHeaders.tracestate, 'vendor=opaque');
  t.ok(
    receiver.contentTypes.every((c) => c.startsWith('application/json')),
    'OTLP/HTTP JSON',
  );
  t.notMatch(JSON.stringify(spans.map((s) => s.attributes)), SECRET, 'no message content without log.content');
});

t.test('with log.content the conversation is on the request span', async (t) => {
  const gw = await startInProcessGateway(config(true));
  t.teardown(() => gw.stop());
  fault.reset();
  const other = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const client = clientInTrace(gw, other);
  fault.script({ kind: 'status', status: 500 });
  await client.messages.create({ model: 'sonnet', max_tokens: 16, messages: [{ role: 'user', content: SECRET }] });
  const root = await waitFor('the request span', async () =>
    receiver.spans.find((s) => s.traceId === other && s.parentSpanId === clientSpan),
  );
  t.match(String(root.attributes['gen_ai.input.messages']), SECRET);
});

t.test('without a traceparent a new trace starts, and the upstream still gets one', async (t) => {
  const gw = await startInProcessGateway(config(false));
  t.teardown(() => gw.stop());
  fault.reset();
  fault.script({ kind: 'status', status: 500 });
  const before = receiver.spans.length;
  const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  await client.messages.create({ model: 'sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  const sent = String(chat.requests.at(-1)!.headers.traceparent);
  const [, id] = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(sent) ?? [];
  t.ok(id, `traceparent sent upstream: ${sent}`);
  const root = await waitFor('the new trace exported', async () =>
    receiver.spans.slice(before).find((s) => s.traceId === id && s.parentSpanId === undefined),
  );
  t.equal(root.name, 'POST /v1/messages');
});

t.test('an unsampled trace records no span but still reaches the upstream, not sampled', async (t) => {
  const gw = await startInProcessGateway({
    ...config(false),
    tracing: { endpoint: receiver.url, export_interval_ms: 50, sample_ratio: 0 },
  });
  fault.reset();
  fault.script({ kind: 'status', status: 500 });
  const unsampled = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  const client = clientInTrace(gw, unsampled, '00');
  await client.messages.create({ model: 'sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  t.match(
    String(chat.requests.at(-1)!.headers.traceparent),
    new RegExp(`^00-${unsampled}-[0-9a-f]{16}-00$`),
    'the caller’s trace, sampled flag off',
  );
  // Stopping flushes whatever was queued: nothing of this trace may be in it.
  await gw.stop();
  t.equal(receiver.spans.filter((s) => s.traceId === unsampled).length, 0);
});

t.test('spans still queued are exported on SIGTERM', async (t) => {
  // An interval far longer than the test: only the drain can send them.
  const gw = await startGateway({
    ...config(false),
    tracing: { endpoint: receiver.url, export_interval_ms: 600_000, sample_ratio: 1 },
  });
  fault.reset();
  const drained = 'd0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0';
  const client = clientInTrace(gw, drained);
  fault.script({ kind: 'status', status: 500 });
  await client.messages.create({ model: 'sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(receiver.spans.filter((s) => s.traceId === drained).length, 0, 'nothing exported before the drain');
  t.equal(await gw.stop('SIGTERM'), 0);
  const spans = receiver.spans.filter((s) => s.traceId === drained);
  t.ok(
    spans.some((s) => s.name === 'POST /v1/messages' && s.parentSpanId === clientSpan),
    'the request span',
  );
  t.equal(spans.filter((s) => s.name === 'polygate.route_attempt').length, 2, 'both attempts');
});
