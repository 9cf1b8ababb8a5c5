// Compressed request bodies (Content-Encoding gzip, br, zstd): decoded on arrival on every route,
// the decoded size held to limits.max_body_bytes, and on a relayed route the upstream gets the JSON
// polygate parsed, uncompressed and without the client's encoding label (it once got the label on
// plain JSON and failed to decompress it).
import t from 'tap';
import { brotliCompressSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';
const maxBody = 64 * 1024;
const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { chat: 'chat' },
  models: { 'chat-relay': { routes: [{ provider: 'chat', model: 'gpt-up' }] } },
  config: { limits: { max_body_bytes: maxBody } },
});

const encoders = { gzip: gzipSync, br: brotliCompressSync, zstd: zstdCompressSync } as const;
const post = (path: string, body: Buffer, encoding: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TEST_KEY}`,
      'content-type': 'application/json',
      'content-encoding': encoding,
      ...headers,
    },
    body: new Uint8Array(body),
  });

for (const [encoding, encode] of Object.entries(encoders)) {
  t.test(`${encoding}: a relayed chat request reaches the upstream as plain JSON`, async (t) => {
    up.chat.reset();
    const messages = [{ role: 'user', content: `hello in ${encoding}` }];
    // With a field polygate does not know: relayed as it came.
    const res = await post(
      '/v1/chat/completions',
      encode(JSON.stringify({ model: 'chat-relay', messages, verbosity_2030: { level: 9 } })),
      encoding,
    );
    t.equal(res.status, 200);
    t.equal(((await res.json()) as Json).choices[0].message.content, `hello in ${encoding}`);
    const got = up.chat.requests[0];
    t.equal(got.headers['content-encoding'], undefined, 'no encoding label on the relayed body');
    t.same((got.body as Json).messages, messages);
    t.equal((got.body as Json).model, 'gpt-up');
    t.same((got.body as Json).verbosity_2030, { level: 9 }, 'the unknown field reached the upstream');
  });

  t.test(`${encoding}: a translated Messages request is decoded`, async (t) => {
    const body = { model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: `echo in ${encoding}` }] };
    const res = await post('/v1/messages', encode(JSON.stringify(body)), encoding, {
      'anthropic-version': '2023-06-01',
    });
    t.equal(res.status, 200);
    t.equal(((await res.json()) as Json).content[0].text, `echo in ${encoding}`);
  });
}

t.test('zstd: what is not zstd, not JSON, or too large once decoded gets the family’s own error', async (t) => {
  const garbage = await post('/v1/chat/completions', Buffer.from('this is not zstd at all'), 'zstd');
  t.equal(garbage.status, 400);
  t.match(await garbage.json(), { error: { type: 'invalid_request_error', message: /zstd/, param: 'body' } });

  const notJson = await post('/v1/chat/completions', zstdCompressSync('"a string"'), 'zstd');
  t.equal(notJson.status, 400);
  t.match(await notJson.json(), { error: { message: /not valid JSON/ } });

  // 1 MB of JSON that compresses to a few hundred bytes: stopped at the limit, answered 413.
  const bomb = zstdCompressSync(
    JSON.stringify({ model: 'chat-relay', messages: [{ role: 'user', content: ' '.repeat(1 << 20) }] }),
  );
  t.ok(bomb.length < maxBody / 10, `the compressed body is small (${bomb.length} bytes)`);
  const tooLarge = await post('/v1/messages', bomb, 'zstd', { 'anthropic-version': '2023-06-01' });
  t.equal(tooLarge.status, 413);
  t.match(await tooLarge.json(), { type: 'error', error: { type: 'request_too_large' } });

  // The body parser's rule for every body holds here too: no `__proto__` key reaches a decoder.
  const poisoned = await post(
    '/v1/chat/completions',
    zstdCompressSync('{"model":"chat-relay","messages":[],"__proto__":{"x":1}}'),
    'zstd',
  );
  t.equal(poisoned.status, 400);

  const healthy = await fetch(`${gw.url}/healthz`);
  t.equal(healthy.status, 200, 'still serving');
});

// Issue #30, finding 10: gzip or deflate data that does not decode got a 500 (the docs say 400
// naming `body`), and `Content-Encoding: GZIP` a 415, though content-codings are case-insensitive
// (RFC 9110 8.4.1).
t.test('gzip and deflate that do not decode are a 400 naming body', async (t) => {
  for (const encoding of ['gzip', 'deflate', 'br']) {
    const r = await post('/v1/chat/completions', Buffer.from('this is not compressed at all'), encoding);
    t.equal(r.status, 400, encoding);
    t.match(await r.json(), { error: { type: 'invalid_request_error', param: 'body', message: /not valid/ } });
  }
  // A gzip stream cut short.
  const cut = gzipSync(JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }));
  const r = await post('/v1/chat/completions', cut.subarray(0, cut.length - 20), 'gzip');
  t.equal(r.status, 400);
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
});

t.test('content-codings are case-insensitive; an unknown one is a 415 naming content-encoding', async (t) => {
  for (const encoding of ['GZIP', 'Gzip', ' gzip ']) {
    const body = { model: 'echo', messages: [{ role: 'user', content: `hello ${encoding}` }] };
    const r = await post('/v1/chat/completions', gzipSync(JSON.stringify(body)), encoding);
    t.equal(r.status, 200, encoding);
    t.equal(((await r.json()) as Json).choices[0].message.content, `hello ${encoding}`);
  }
  const identity = await post(
    '/v1/chat/completions',
    Buffer.from('{"model":"echo","messages":[{"role":"user","content":"i"}]}'),
    'IDENTITY',
  );
  t.equal(identity.status, 200);
  const unknown = await post('/v1/chat/completions', Buffer.from('{}'), 'compress');
  t.equal(unknown.status, 415);
  t.match(await unknown.json(), { error: { param: 'content-encoding', message: /'compress' is not supported/ } });
});
