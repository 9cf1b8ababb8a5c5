// Upstream timeouts (connect, first byte, idle gap between chunks) set per route, answered in
// each chat family's own shape: an HTTP 504-class error before the first byte reached the client,
// an error event inside the stream after. Messages, Chat Completions, Responses and Gemini clients
// against a running polygate; relayed (same format) and translated paths both.
import t, { type Test } from 'tap';
import { startBlackhole, startFaultUpstream, type Fault } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { sseEvents, type SseEvent } from './resilience-helpers.ts';
import { postFamilyTurn, type ChatFamily } from '../helpers/post-family.ts';

import type { Json } from '../helpers/json.ts';
const fault = await startFaultUpstream();
const hole = await startBlackhole();
const tight = { first_byte_ms: 400, idle_ms: 400 };
// Every request here fails on purpose; the breaker (test/resilience/circuit-breaker.test.ts) stays out of it.
const noBreaker = { consecutive_failures: 0, failure_ratio: 0 };
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      flaky: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' },
      flakyA: { type: 'anthropic', base_url: fault.anthropicUrl, api_key: 'sk-up' },
      hole: { type: 'openai', base_url: `${hole.url}/v1`, api_key: 'sk-up', api: 'chat_completions' },
    },
    models: {
      slow: { breaker: noBreaker, routes: [{ provider: 'flaky', model: 'up-slow', timeouts: tight }] },
      'slow-a': { breaker: noBreaker, routes: [{ provider: 'flakyA', model: 'up-slow-a', timeouts: tight }] },
      unreachable: {
        breaker: noBreaker,
        routes: [{ provider: 'hole', model: 'up-hole', timeouts: { connect_ms: 300 } }],
      },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await fault.close();
  await hole.close();
});

type Family = ChatFamily;
const families: Family[] = ['messages', 'chat', 'responses', 'gemini'];

function call(family: Family, model: string, stream: boolean): Promise<Response> {
  return postFamilyTurn(gw.url, family, {
    key: TEST_KEY,
    model,
    text: 'one two three four five',
    stream,
    maxTokens: 32,
  });
}

/** The family's error body for a timeout, with the message naming which timeout fired. */
function assertTimeoutBody(t: Test, family: Family, body: Json, which: RegExp): void {
  switch (family) {
    case 'messages':
      t.equal(body.type, 'error');
      t.equal(body.error.type, 'timeout_error');
      t.match(body.error.message, which);
      return;
    case 'chat':
    case 'responses':
      t.type(body.error.type, 'string');
      t.match(body.error.message, which);
      return;
    case 'gemini':
      t.equal(body.error.code, 504);
      t.equal(body.error.status, 'DEADLINE_EXCEEDED');
      t.match(body.error.message, which);
      return;
  }
}

async function before(
  t: Test,
  family: Family,
  model: string,
  faultToUse: Fault | undefined,
  which: RegExp,
  stream = false,
): Promise<void> {
  if (faultToUse) fault.script(faultToUse);
  const res = await call(family, model, stream);
  t.equal(res.status, 504, `${family}: 504 before the first byte`);
  assertTimeoutBody(t, family, (await res.json()) as Json, which);
}

/** The stream started, then stalled: the last event is the family's in-stream error. */
async function after(t: Test, family: Family, model: string, afterChunks: number): Promise<void> {
  fault.script({ kind: 'stall-body', afterChunks });
  const res = await call(family, model, true);
  t.equal(res.status, 200, `${family}: the stream had started`);
  const events: SseEvent[] = sseEvents(await res.text());
  t.ok(events.length >= 2, 'the start of the answer reached the client');
  const last = events[events.length - 1];
  switch (family) {
    case 'messages':
      t.equal(last.event, 'error');
      assertTimeoutBody(t, family, JSON.parse(last.data) as Json, /idle timeout/);
      return;
    case 'chat':
      assertTimeoutBody(t, family, JSON.parse(last.data) as Json, /idle timeout/);
      return;
    case 'responses': {
      const error = events.find((e) => e.event === 'error');
      t.ok(error, 'an error event');
      t.match(JSON.parse(error!.data), { message: /idle timeout/ });
      t.equal(last.event, 'response.failed', 'then the failed response');
      return;
    }
    case 'gemini':
      assertTimeoutBody(t, family, JSON.parse(last.data) as Json, /idle timeout/);
      return;
  }
}

t.beforeEach(() => fault.reset());

// The families run side by side: each request takes the same scripted fault.
t.test('first-byte timeout before the first byte, in every family, streamed or not', async (t) => {
  await Promise.all(
    families.flatMap((f) => [
      before(t, f, 'slow', { kind: 'stall-headers' }, /first-byte timeout/),
      before(t, f, 'slow', { kind: 'stall-headers' }, /first-byte timeout/, true),
    ]),
  );
  t.equal(fault.requests.length, 8, 'no retries configured: one upstream call each');
});

t.test('idle timeout after the first byte, inside the stream, in every family', async (t) => {
  await Promise.all(families.map((f) => after(t, f, 'slow', 2)));
});

t.test('translated streams: an upstream idle before its first event is still a 504', async (t) => {
  fault.script({ kind: 'stall-body', afterChunks: 0 });
  const res = await call('gemini', 'slow', true);
  t.equal(res.status, 504);
  assertTimeoutBody(t, 'gemini', (await res.json()) as Json, /idle timeout/);
});

t.test('relayed Messages (anthropic upstream): first-byte and idle timeouts', async (t) => {
  await before(t, 'messages', 'slow-a', { kind: 'stall-headers' }, /first-byte timeout/, true);
  await after(t, 'messages', 'slow-a', 3);
  t.equal(fault.requests.length, 2);
});

t.test('connect timeout in every family', async (t) => {
  await Promise.all(families.map((f) => before(t, f, 'unreachable', undefined, /connect timeout/)));
});
