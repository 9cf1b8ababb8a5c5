// Guessing the admin token online (src/app/admin-throttle.ts): past admin.wrong_tokens_per_minute
// wrong tokens from one address (the admin API's Bearer and the console's sign-in counted
// together), that address gets a 429 with retry-after, even with the right token, until its minute
// ends; another address is not held back; requests that present no token are not counted. Before,
// every guess was answered (a 401) at whatever rate the guesser sent them.
import { request } from 'node:http';
import t from 'tap';
import { FailedAuthThrottle } from '../../src/services/auth/failed-auth-throttle.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig } from '../helpers/start-gateway.ts';

const ADMIN = 'admin-token-throttle-0123456789';

type Answer = { status: number; retryAfter: string | undefined; body: string };

/** One request from `from` (any 127/8 address is this machine's loopback). */
function send(url: string, from: string, method: string, path: string, headers: Record<string, string>, body = '') {
  const { hostname, port } = new URL(url);
  return new Promise<Answer>((ok, fail) => {
    const req = request({ host: hostname, port, path, method, headers, localAddress: from }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const bearer = (url: string, from: string, token: string): Promise<Answer> =>
  send(url, from, 'GET', '/admin/usage', { authorization: `Bearer ${token}` });
const signIn = (url: string, from: string, token: string): Promise<Answer> =>
  send(
    url,
    from,
    'POST',
    '/console/session',
    { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    new URLSearchParams({ token }).toString(),
  );

t.test('past the limit an address is refused, even with the right token; others are not', async (t) => {
  const app = await startInProcessApp(t, testConfig({ admin: { token: ADMIN, wrong_tokens_per_minute: 4 } }));
  const a = '127.0.0.1';
  for (let i = 0; i < 2; i++) t.equal((await bearer(app.url, a, `guess-${i}`)).status, 401, `Bearer guess ${i}`);
  for (let i = 2; i < 4; i++) t.equal((await signIn(app.url, a, `guess-${i}`)).status, 401, `sign-in guess ${i}`);
  const refused = await bearer(app.url, a, ADMIN);
  t.equal(refused.status, 429, 'the fifth try is refused before its token is compared');
  t.ok(Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60, `retry-after ${refused.retryAfter}`);
  t.match(refused.body, /too many wrong admin tokens/);
  t.notMatch(refused.body, new RegExp(ADMIN), 'the token is not echoed');
  t.equal((await signIn(app.url, a, ADMIN)).status, 429, 'the sign-in shares the count');
  t.equal((await bearer(app.url, '127.0.0.2', ADMIN)).status, 200, 'another address with the right token');
});

t.test('requests with no token are not counted; a right token starts the count again', async (t) => {
  const app = await startInProcessApp(t, testConfig({ admin: { token: ADMIN, wrong_tokens_per_minute: 3 } }));
  const a = '127.0.0.3';
  for (let i = 0; i < 10; i++) t.equal((await send(app.url, a, 'GET', '/admin/usage', {})).status, 401);
  t.equal((await bearer(app.url, a, 'guess-1')).status, 401);
  t.equal((await bearer(app.url, a, 'guess-2')).status, 401);
  t.equal((await bearer(app.url, a, ADMIN)).status, 200, 'two wrong of three, then the right one');
  for (let i = 0; i < 3; i++) t.equal((await bearer(app.url, a, `again-${i}`)).status, 401, `counted from 0: ${i}`);
  t.equal((await bearer(app.url, a, ADMIN)).status, 429);
});

t.test('the count: a window a minute, bounded in addresses', async (t) => {
  const th = new FailedAuthThrottle({ windowMs: 1_000, maxAddresses: 3 });
  for (let i = 0; i < 5; i++) th.failed('x', 100);
  t.equal(th.waitSeconds('x', 5, 100), 1, 'refused until the window ends');
  t.equal(th.waitSeconds('x', 6, 100), 0, 'a higher limit is not reached');
  t.equal(th.waitSeconds('x', 5, 1_100), 0, 'the window ended');
  for (const a of ['a', 'b', 'c', 'd']) th.failed(a, 2_000);
  t.equal(th.size, 3, 'the oldest address dropped at the bound');
  t.equal(th.waitSeconds('a', 1, 2_000), 0, "a's window was the one dropped");
  t.equal(th.waitSeconds('d', 1, 2_000), 1);
});

t.test('the setting: a positive integer, refused otherwise naming it', async (t) => {
  for (const bad of [0, -1, 1.5, 'x'])
    await t.rejects(
      startInProcessApp(t, testConfig({ admin: { token: ADMIN, wrong_tokens_per_minute: bad } })),
      /wrong_tokens_per_minute/,
      String(bad),
    );
});
