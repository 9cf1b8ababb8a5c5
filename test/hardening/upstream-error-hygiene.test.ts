// Finding 10 of the hardening issue: an upstream's error text was relayed or embedded verbatim,
// so an upstream that quotes the provider key (`Bearer sk-…`) handed it to the client, and an
// upstream 401 (polygate's provider key is wrong) reached the client as the client's own 401.
// Now every configured secret is scrubbed from upstream error text, relayed (pass-through) or
// embedded (translated), and an upstream 401/403 is a 502 naming the provider.
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { startHostileUpstream } from './hostile-upstream.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';

import type { Json } from '../helpers/json.ts';
const upstreamKey = 'sk-upstream-secret-key-0123456789';
const up = await startHostileUpstream();
const gw = await startInProcessGateway(
  testConfig({
    providers: { hostile: { type: 'openai', base_url: up.url, api_key: upstreamKey, api: 'chat_completions' } },
    models: Object.fromEntries(
      ['leak', 'leak-500', 'reject', 'leak-header', 'leak-header-ok'].map((m) => [
        m,
        { routes: [{ provider: 'hostile', model: m }], breaker: { consecutive_failures: 0, failure_ratio: 0 } },
      ]),
    ),
  }),
);
t.teardown(async () => {
  await gw.stop();
  await up.close();
});

/** Chat Completions to an OpenAI upstream: a same-format relay. */
const relayed = (model: string): Promise<Response> =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** Messages to an OpenAI upstream: translated. */
const translated = (model: string): Promise<Response> =>
  postMessages(gw.url, { model, max_tokens: 8, messages: userSays('hi') });

t.test('a relayed error body that quotes the provider key has it redacted', async (t) => {
  const r = await relayed('leak');
  t.equal(r.status, 400, "the upstream's own status is relayed");
  const text = await r.text();
  t.notMatch(text, upstreamKey);
  t.match(text, /Authorization: \[redacted\]/);
  t.equal((JSON.parse(text) as Json).error.type, 'invalid_request_error', 'still the upstream JSON');
});

t.test('a translated error that quotes the provider key has it redacted', async (t) => {
  for (const model of ['leak', 'leak-500']) {
    const r = await translated(model);
    const text = await r.text();
    t.notMatch(text, upstreamKey, model);
    t.match(text, /\[redacted\]/, model);
    t.equal((JSON.parse(text) as Json).type, 'error', "in the Messages family's shape");
  }
});

t.test('an upstream 401 is a 502 naming the provider, on both paths', async (t) => {
  const a = await relayed('reject');
  t.equal(a.status, 502);
  const ab = (await a.json()) as Json;
  t.match(ab.error.message, /provider 'hostile' rejected polygate's credentials/);
  t.notMatch(JSON.stringify(ab), upstreamKey.slice(3));
  const b = await translated('reject');
  t.equal(b.status, 502);
  const bb = (await b.json()) as Json;
  t.equal(bb.type, 'error');
  t.match(bb.error.message, /provider 'hostile' rejected polygate's credentials/);
  t.notMatch(JSON.stringify(bb), upstreamKey.slice(3));
});

// Issue #30, finding 8: on a same-format relay an upstream's error headers reached the client
// verbatim, one of them quoting the operator's key. Now an error passes on only its type, retry
// and rate-limit headers, and every relayed header value has the configured secrets scrubbed.
t.test('a relayed error passes on only known headers; none quotes the provider key', async (t) => {
  const r = await relayed('leak-header');
  t.equal(r.status, 429);
  t.equal(r.headers.get('x-debug-authorization'), null, 'the debug header stays upstream');
  t.equal(r.headers.get('x-upstream-internal'), null);
  t.equal(r.headers.get('retry-after'), '1', 'retry-after is relayed');
  t.equal(r.headers.get('x-ratelimit-remaining-requests'), '0', 'rate-limit state is relayed');
  t.match(r.headers.get('content-type'), /json/);
  for (const [, v] of r.headers) t.notMatch(v, upstreamKey);
  await r.text();
});

t.test('a relayed answer keeps its headers, with the provider key scrubbed from their values', async (t) => {
  const r = await relayed('leak-header-ok');
  t.equal(r.status, 200);
  t.match(r.headers.get('x-debug-authorization'), /\[redacted\]/, 'kept, its secret scrubbed');
  for (const [, v] of r.headers) t.notMatch(v, upstreamKey);
  await r.text();
});
