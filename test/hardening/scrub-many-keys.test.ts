// The secret scrub with many client keys configured: it was one search per configured secret over
// every relayed header value and error body (0.8 ms a relayed answer with 10,000 keys,
// bench/scrub-micro.ts); it is now one compiled matcher per provider (scrub-secrets.ts,
// `secretMatcher`). What it redacts stays the same: an upstream answer echoing the provider key or
// a client key, in a header or an error body, reaches the client with both redacted.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const providerKey = 'sk-upstream-many-keys-0123456789';
// An upstream that quotes what it was sent (its Authorization, the prompt) in a header and an error body.
const up = createServer((req, res) => {
  let body = '';
  req.on('data', (b: Buffer) => (body += b.toString()));
  req.on('end', () => {
    const prompt = String((JSON.parse(body) as { messages: { content: string }[] }).messages[0]?.content);
    const echo = `you sent ${String(req.headers.authorization)} and ${prompt}`;
    res.writeHead(400, { 'content-type': 'application/json', 'retry-after': echo });
    res.end(JSON.stringify({ error: { message: echo, type: 'invalid_request_error', param: null, code: null } }));
  });
});
await new Promise<void>((ok) => up.listen(0, '127.0.0.1', ok));
const base = testConfig({
  providers: {
    loud: {
      type: 'openai',
      base_url: `http://127.0.0.1:${(up.address() as AddressInfo).port}/v1`,
      api_key: providerKey,
      api: 'chat_completions',
    },
  },
  models: { loud: { routes: [{ provider: 'loud', model: 'loud-1' }] } },
});
const many = Array.from({ length: 5_000 }, (_, i) => ({
  id: `k${i}`,
  secret: `pg-many-${String(i).padStart(6, '0')}-secret`,
  workspace: 'ws1',
  models: ['*'],
}));
const gw = await startInProcessGateway({ ...base, keys: [...(base.keys as unknown[]), ...many] });
t.teardown(async () => {
  await gw.stop();
  await new Promise((ok) => up.close(ok));
});

t.test('a relayed error echoing the provider key and client keys has them redacted', async (t) => {
  const another = many[4_321]!.secret;
  const r = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({
      model: 'loud',
      messages: [{ role: 'user', content: `mine ${TEST_KEY} theirs ${another}` }],
    }),
  });
  t.equal(r.status, 400);
  const text = await r.text();
  const header = r.headers.get('retry-after') ?? '';
  t.match(text, /you sent \[redacted\] and mine \[redacted\] theirs \[redacted\]/, 'the body, redacted');
  t.match(header, /you sent \[redacted\] and mine \[redacted\] theirs \[redacted\]/, 'the header, redacted');
  for (const secret of [providerKey, TEST_KEY, another]) {
    t.notOk(text.includes(secret), `${secret} not in the body`);
    t.notOk(header.includes(secret), `${secret} not in the header`);
  }
});
