// Routing as a traffic manager, against a running polygate and a misbehaving upstream
// (test/emulators/fault-upstream.ts): fallback after a 500 and after a refused connection,
// weighted splits, retries that honour Retry-After, and no retry once bytes reached the client.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { refusedUrl, startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes, route, routesTo } from '../helpers/model-routes.ts';
import { metricValue, sseEvents } from './resilience-helpers.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';

const fault = await startFaultUpstream();
const dead = await refusedUrl();
const quickRetries = { max_retries: 2, base_delay_ms: 10, max_delay_ms: 50 };
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      flaky: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' },
      flakyA: { type: 'anthropic', base_url: fault.anthropicUrl, api_key: 'sk-up' },
      dead: { type: 'openai', base_url: `${dead}/v1`, api_key: 'sk-up', api: 'chat_completions' },
      heavy: { type: 'echo' },
      light: { type: 'echo' },
    },
    models: {
      ...modelRoutes({
        'fb-500': ['flaky/up-1', 'echo/echo-1'],
        'fb-500-anthropic': ['flakyA/up-a', 'echo/echo-1'],
        'fb-refused': ['dead/up-dead', 'echo/echo-1'],
      }),
      split: { strategy: 'weighted', ...routesTo(route('heavy/h', { weight: 3 }), route('light/l', { weight: 1 })) },
      retry: routesTo(route('flaky/up-retry', { retries: quickRetries })),
      'retry-anthropic': routesTo(route('flakyA/up-retry-a', { retries: quickRetries })),
      'retry-patient': routesTo(
        route('flaky/up-patient', { retries: { ...quickRetries, max_retry_after_ms: 500 } }),
        'echo/echo-1',
      ),
      'retry-then-fallback': routesTo(route('flaky/up-rtf', { retries: quickRetries }), 'echo/echo-1'),
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await fault.close();
});
const messages = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const chat = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
t.beforeEach(() => fault.reset());

t.test(
  'fallback after an upstream 500, translated (Messages → openai) and relayed (Chat → openai, Messages → anthropic)',
  async (t) => {
    fault.script({ kind: 'status', status: 500 });
    const m = await messages.messages
      .create({ model: 'fb-500', max_tokens: 16, messages: [{ role: 'user', content: 'rescued' }] })
      .withResponse();
    t.equal(m.response.headers.get('x-polygate-route'), 'echo/echo-1');
    t.equal(m.data.content[0].type === 'text' && m.data.content[0].text, 'rescued');

    fault.script({ kind: 'status', status: 500 });
    const c = await chat.chat.completions
      .create({ model: 'fb-500', messages: [{ role: 'user', content: 'rescued too' }] })
      .withResponse();
    t.equal(c.response.headers.get('x-polygate-route'), 'echo/echo-1', 'the pass-through relay falls back too');
    t.equal(c.data.choices[0].message.content, 'rescued too');

    fault.script({ kind: 'status', status: 503 });
    const a = await messages.messages
      .create({ model: 'fb-500-anthropic', max_tokens: 16, messages: [{ role: 'user', content: 'again' }] })
      .withResponse();
    t.equal(a.response.headers.get('x-polygate-route'), 'echo/echo-1');
    t.equal(fault.requests.length, 3, 'each failing route was tried once (no retries configured)');
    t.ok(
      (await metricValue(gw, 'polygate_fallbacks_total', { provider: 'flaky', cause: 'server_error' })) >= 2,
      'fallbacks counted by cause',
    );
  },
);

t.test('fallback after a refused connection, streamed too', async (t) => {
  const r = await messages.messages
    .create({ model: 'fb-refused', max_tokens: 16, messages: [{ role: 'user', content: 'still here' }] })
    .withResponse();
  t.equal(r.response.headers.get('x-polygate-route'), 'echo/echo-1');
  const s = await chat.chat.completions.create({
    model: 'fb-refused',
    stream: true,
    messages: [{ role: 'user', content: 'streamed rescue' }],
  });
  let text = '';
  for await (const c of s) text += c.choices[0]?.delta.content ?? '';
  t.equal(text, 'streamed rescue');
  t.ok((await metricValue(gw, 'polygate_fallbacks_total', { provider: 'dead', cause: 'connection' })) >= 2);
});

t.test('weighted routes split traffic by weight', async (t) => {
  const n = 400;
  const counts: Record<string, number> = {};
  const batch = 40;
  for (let i = 0; i < n; i += batch) {
    const routes = await Promise.all(
      Array.from({ length: batch }, async () => {
        const res = await fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'split', messages: [{ role: 'user', content: 'x' }] }),
        });
        await res.arrayBuffer();
        return res.headers.get('x-polygate-route') ?? 'none';
      }),
    );
    for (const r of routes) counts[r] = (counts[r] ?? 0) + 1;
  }
  const heavy = (counts['heavy/h'] ?? 0) / n;
  t.equal((counts['heavy/h'] ?? 0) + (counts['light/l'] ?? 0), n, 'every request served by one of the two');
  // Expected 0.75; ±0.08 is more than 3.5 standard deviations of a binomial at n = 400.
  t.ok(Math.abs(heavy - 0.75) <= 0.08, `share of the weight-3 route ${heavy.toFixed(3)} is 0.75 ± 0.08`);
});

t.test('a 429 is retried on the same route after its Retry-After', async (t) => {
  const before = await metricValue(gw, 'polygate_upstream_retries_total', { provider: 'flaky', cause: 'rate_limited' });
  fault.script({ kind: 'status', status: 429, retryAfter: '1' });
  const r = await chat.chat.completions
    .create({ model: 'retry', messages: [{ role: 'user', content: 'patience' }] })
    .withResponse();
  t.equal(r.data.choices[0].message.content, 'patience');
  t.equal(r.response.headers.get('x-polygate-route'), 'flaky/up-retry');
  t.equal(fault.requests.length, 2);
  const gap = fault.requests[1].at - fault.requests[0].at;
  t.ok(gap >= 1000, `the retry waited for Retry-After: 1 (${gap} ms)`);
  t.equal(
    await metricValue(gw, 'polygate_upstream_retries_total', { provider: 'flaky', cause: 'rate_limited' }),
    before + 1,
  );

  fault.script({ kind: 'status', status: 429, retryAfter: '1' }, { kind: 'status', status: 500 });
  const a = await messages.messages.create({
    model: 'retry-anthropic',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'third time' }],
  });
  t.equal(
    a.content[0].type === 'text' && a.content[0].text,
    'third time',
    'relayed (Messages → anthropic) requests retry too',
  );
  t.equal(fault.requests.length, 5);
  t.ok(fault.requests[3].at - fault.requests[2].at >= 1000);
});

t.test('a Retry-After longer than max_retry_after_ms goes to the next route at once', async (t) => {
  fault.script({ kind: 'status', status: 429, retryAfter: '30' });
  const r = await chat.chat.completions
    .create({ model: 'retry-patient', messages: [{ role: 'user', content: 'elsewhere' }] })
    .withResponse();
  t.equal(r.response.headers.get('x-polygate-route'), 'echo/echo-1');
  t.equal(fault.requests.length, 1);
});

t.test(
  'retries on 5xx, reset connections and malformed streams, then the next route; counted and logged',
  async (t) => {
    fault.script({ kind: 'status', status: 502 }, { kind: 'reset' }, { kind: 'malformed', afterChunks: 0 });
    const r = await messages.messages
      .create({ model: 'retry-then-fallback', max_tokens: 16, messages: [{ role: 'user', content: 'last resort' }] })
      .withResponse();
    t.equal(
      r.response.headers.get('x-polygate-route'),
      'echo/echo-1',
      'three failed attempts on the first route, then the second',
    );
    t.equal(fault.requests.length, 3);
    const id = r.response.headers.get('x-request-id');
    const line = await waitForLog(id);
    t.equal(line.upstream_attempts, 4, 'the log line counts every upstream call');
    t.equal(line.outcome, 'ok');

    fault.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 503 });
    const res = await postMessages(gw.url, { model: 'retry', max_tokens: 16, messages: userSays('doomed') });
    t.equal(res.status, 503, "the last attempt's failure is the answer");
    t.equal(((await res.json()) as { error: { type: string } }).error.type, 'overloaded_error');
    const failed = await waitForLog(res.headers.get('x-request-id'));
    t.equal(failed.upstream_attempts, 3);
    t.equal(failed.upstream_cause, 'server_error', 'the final cause is in the log');
    t.ok(
      (await metricValue(gw, 'polygate_upstream_attempts_count', { family: 'messages', outcome: 'server_error' })) >= 1,
      'and in metrics',
    );
  },
);

t.test('no retry once bytes reached the client: the failure is sent inside the stream', async (t) => {
  fault.script({ kind: 'cut', afterChunks: 3 });
  const res = await postMessages(gw.url, {
    model: 'retry-then-fallback',
    max_tokens: 16,
    stream: true,
    messages: userSays('one two three four'),
  });
  t.equal(res.status, 200);
  const events = sseEvents(await res.text());
  t.equal(events[0].event, 'message_start');
  t.ok(
    events.some((e) => e.event === 'content_block_delta'),
    'the client saw the start of the answer',
  );
  t.equal(events[events.length - 1].event, 'error', 'then an error event, not a cut');
  t.equal(fault.requests.length, 1, 'the upstream was not asked again');

  fault.reset();
  fault.script({ kind: 'cut', afterChunks: 2 });
  const relayed = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'retry-then-fallback',
      stream: true,
      messages: [{ role: 'user', content: 'one two three four' }],
    }),
  });
  const chunks = sseEvents(await relayed.text());
  t.ok(chunks.length >= 2);
  t.match(
    JSON.parse(chunks[chunks.length - 1].data),
    { error: { type: 'server_error' } },
    'the relay ends in the family error too',
  );
  t.equal(fault.requests.length, 1, 'no retry on the relay path either');
});

/** The request's log line, once the gateway has written it (after the response has ended). */
async function waitForLog(id: string | null): Promise<Record<string, unknown>> {
  const end = Date.now() + 5000;
  for (;;) {
    for (const l of gw.output().split('\n')) {
      if (!l.includes(`"request_id":"${id}"`)) continue;
      const line = JSON.parse(l) as Record<string, unknown>;
      if (line.status !== undefined) return line;
    }
    if (Date.now() > end) throw new Error(`no log line for ${id}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
