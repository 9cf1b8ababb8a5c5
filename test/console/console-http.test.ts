// The console's server side over plain HTTP (docs/console.md, "Security rules"): off without
// admin.token, sign-in by form only, the session cookie's attributes, the CSRF header on every
// admin call, sign-out, the bound on sessions, the security headers, and paths that try to reach
// files outside the allow-list. The browser's own side (SameSite, CSP enforcement) is in
// console-browser.test.ts.
import { request } from 'node:http';
import t from 'tap';
import { assertBadParams, badPageQueries } from '../helpers/bad-page-params.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { maxSessions } from '../../src/app/console/console-sessions.ts';

const ADMIN = 'admin-token-console-0123456789';
const app = await startInProcessApp(t, testConfig({ admin: { token: ADMIN } }));

const form = (token: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ token }).toString(),
});

async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const r = await fetch(`${app.url}/console/session`, form(ADMIN));
  if (r.status !== 200) throw new Error(`sign-in: ${r.status} ${await r.text()}`);
  const setCookie = r.headers.get('set-cookie') ?? '';
  const { csrf_token } = (await r.json()) as { csrf_token: string };
  return { cookie: setCookie.split(';')[0], csrf: csrf_token, setCookie };
}

/** A request with the raw path as written (fetch would normalise `..` and `%2e%2e`). */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(app.url);
  return new Promise((ok, fail) => {
    const req = request({ host: hostname, port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

t.test('off without admin.token: the page, its files and the sign-in are 404', async (t) => {
  const off = await startInProcessApp(t, testConfig({}));
  for (const path of ['/console', '/console/app.js', '/console/vendor/preact.mjs', '/console/session']) {
    const r = await fetch(`${off.url}${path}`);
    t.equal(r.status, 404, path);
  }
  t.equal((await fetch(`${off.url}/console/session`, form('anything'))).status, 404, 'sign-in');
});

t.test('the page and its files carry a strict CSP and no-store where they hold data', async (t) => {
  const page = await fetch(`${app.url}/console`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'self'(;|$)/, "scripts from this origin only: no 'unsafe-inline', no hash, no other host");
  t.match(csp, /style-src 'self'(;|$)/);
  t.match(csp, /frame-ancestors 'none'/);
  t.notMatch(csp, /unsafe/);
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  t.equal(page.headers.get('referrer-policy'), 'no-referrer');
  t.equal(page.headers.get('cache-control'), 'no-store');
  const html = await page.text();
  t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the page');
  t.notMatch(html, /style=/, 'no inline style');
  const hooks = await fetch(`${app.url}/console/vendor/hooks.mjs`);
  t.equal(hooks.status, 200);
  t.match(hooks.headers.get('content-type'), /text\/javascript/);
  t.match(hooks.headers.get('content-security-policy'), /script-src 'self'/);
  const text = await hooks.text();
  t.notMatch(text, /from"preact"/, 'the bare import is pointed at the served copy');
  t.match(text, /from"\.\/preact\.mjs"/);
  for (const path of ['/console/vendor/uplot.mjs', '/console/vendor/htm.mjs', '/console/vendor/uplot.css'])
    t.equal((await fetch(`${app.url}${path}`)).status, 200, path);
  const session = await signIn();
  const again = await fetch(`${app.url}/console/session`, { headers: { cookie: session.cookie } });
  t.equal(again.headers.get('cache-control'), 'no-store', 'the CSRF token is not cached');
});

t.test('sign-in: the admin token in a form body only; wrong tokens and other shapes are refused', async (t) => {
  const wrong = await fetch(`${app.url}/console/session`, form('admin-token-console-0123456780'));
  t.equal(wrong.status, 401);
  t.equal(wrong.headers.get('set-cookie'), null, 'no cookie for a wrong token');
  t.equal((await fetch(`${app.url}/console/session`, form(TEST_KEY))).status, 401, 'a client key is not the token');
  const inUrl = await fetch(`${app.url}/console/session?token=${ADMIN}`, form(''));
  t.equal(inUrl.status, 400, 'a token in the URL is not read');
  t.equal(inUrl.headers.get('set-cookie'), null);
  const json = await fetch(`${app.url}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: ADMIN }),
  });
  t.equal(json.status, 415, 'a form, not JSON');
  const extra = await fetch(`${app.url}/console/session`, {
    ...form(ADMIN),
    body: `token=${ADMIN}&remember=1`,
  });
  t.equal(extra.status, 400);
  t.match(await extra.text(), /remember/, 'the unknown field is named');
  const huge = await fetch(`${app.url}/console/session`, { ...form(ADMIN), body: `token=${'x'.repeat(100_000)}` });
  t.equal(huge.status, 413, 'a huge form is refused before it is read whole');
  const crossSite = await fetch(`${app.url}/console/session`, {
    ...form(ADMIN),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
  });
  t.equal(crossSite.status, 403, "a sign-in posted from another site's page");
  t.equal(crossSite.headers.get('set-cookie'), null);
});

t.test('the session cookie: HttpOnly, SameSite=Strict, bounded, Secure only over https', async (t) => {
  const { setCookie, csrf } = await signIn();
  t.match(setCookie, /^polygate_console=[A-Za-z0-9_-]{43};/);
  t.match(setCookie, /httponly/i);
  t.match(setCookie, /samesite=strict/i);
  t.match(setCookie, /path=\//);
  const expires = Date.parse(/expires=([^;]+)/i.exec(setCookie)?.[1] ?? '');
  const hours = (expires - Date.now()) / 3_600_000;
  t.ok(hours > 7.9 && hours <= 8, `expires in eight hours (${hours.toFixed(3)})`);
  t.notMatch(setCookie, /secure/i, 'plain http: a Secure cookie would never come back');
  t.match(csrf, /^[A-Za-z0-9_-]{43}$/);
  t.notOk(setCookie.includes(csrf), 'the CSRF token is not the cookie');
});

t.test('an admin call with the session needs its CSRF header; without a session nothing passes', async (t) => {
  const { cookie, csrf } = await signIn();
  const call = (headers: Record<string, string>, method = 'GET') =>
    fetch(`${app.url}/admin/providers`, { method, headers });
  t.equal((await call({ cookie, 'x-polygate-csrf': csrf })).status, 200, 'cookie + CSRF header');
  const noCsrf = await call({ cookie });
  t.equal(noCsrf.status, 403, 'cookie alone (what a cross-site form sends)');
  t.match(await noCsrf.text(), /x-polygate-csrf/);
  t.equal(
    (await call({ cookie, 'x-polygate-csrf': csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A') })).status,
    403,
    'a wrong CSRF token',
  );
  t.equal((await call({ 'x-polygate-csrf': csrf })).status, 401, 'CSRF header without the cookie');
  t.equal((await call({ cookie: 'polygate_console=madeup', 'x-polygate-csrf': csrf })).status, 401, 'made-up id');
  t.equal((await call({})).status, 401, 'no session, no token');
  const other = await signIn();
  t.equal((await call({ cookie, 'x-polygate-csrf': other.csrf })).status, 403, "another session's CSRF token");
  t.equal(
    (await call({ cookie, 'x-polygate-csrf': csrf, authorization: 'Bearer wrong' })).status,
    401,
    'a wrong Bearer token is judged alone, whatever the cookie',
  );
  t.equal((await call({ authorization: `Bearer ${ADMIN}` })).status, 200, 'the Bearer token still works');
});

t.test('sign-out ends the session (with the CSRF header only)', async (t) => {
  const { cookie, csrf } = await signIn();
  t.equal((await fetch(`${app.url}/console/session`, { method: 'DELETE', headers: { cookie } })).status, 403);
  const out = await fetch(`${app.url}/console/session`, {
    method: 'DELETE',
    headers: { cookie, 'x-polygate-csrf': csrf },
  });
  t.equal(out.status, 204);
  t.match(out.headers.get('set-cookie'), /polygate_console=;.*expires=Thu, 01 Jan 1970/i, 'the cookie is cleared');
  const after = await fetch(`${app.url}/admin/providers`, { headers: { cookie, 'x-polygate-csrf': csrf } });
  t.equal(after.status, 401);
  t.match(await after.text(), /sign in again/);
  t.equal((await fetch(`${app.url}/console/session`, { headers: { cookie } })).status, 401);
});

t.test(`at most ${maxSessions} sessions: signing in past it ends the oldest`, async (t) => {
  const first = await signIn();
  for (let i = 0; i < maxSessions; i++) await signIn();
  const r = await fetch(`${app.url}/admin/providers`, {
    headers: { cookie: first.cookie, 'x-polygate-csrf': first.csrf },
  });
  t.equal(r.status, 401, 'the oldest session is gone');
  const last = await signIn();
  t.equal(
    (await fetch(`${app.url}/admin/providers`, { headers: { cookie: last.cookie, 'x-polygate-csrf': last.csrf } }))
      .status,
    200,
  );
});

t.test('path tricks under /console reach no file outside the allow-list', async (t) => {
  const tricks = [
    '/console/../package.json',
    '/console/%2e%2e/package.json',
    '/console/vendor/..%2f..%2fpackage.json',
    '/console/vendor/%2e%2e%2f%2e%2e%2fpackage.json',
    '/console/pages/../../src/main.ts',
    '/console/app.js/../../../package.json',
    '/console/app.js%00.html',
    '/console/vendor/preact.mjs%2500',
    '/console//etc/passwd',
    '/console/%2fetc%2fpasswd',
    '/console/node_modules/preact/package.json',
    '/console/index.html',
    '/console/vendor/',
    '/console/pages/',
    '/console/..%5c..%5cpackage.json',
    '/console/vendor/preact.mjs.map',
    '/console/public/console/app.js',
  ];
  for (const path of tricks) {
    const r = await rawGet(path);
    t.not(r.status, 200, path);
    t.notMatch(r.body, /"dependencies"|root:x:|createServer|sourceMappingURL|"version"/, `${path}: no file content`);
  }
  // Node answers `/console/../package.json` itself? No: it is passed as written; Koa's router
  // matches no route, so the 404 is polygate's own.
  t.equal((await rawGet('/console/../package.json')).status, 404);
});

t.test('GET /admin/providers and /admin/models: the config, the breakers, recent failures', async (t) => {
  const gw = await startInProcessApp(
    t,
    testConfig({
      admin: { token: ADMIN },
      providers: {
        dead: { type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'sk-up', api: 'chat_completions' },
      },
      models: { 'gone-*': { routes: [{ provider: 'dead', model: 'gpt-gone' }] } },
    }),
  );
  const auth = { authorization: `Bearer ${ADMIN}` };
  const chat = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gone-1', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.ok(chat.status >= 500, `the dead upstream fails the call (${chat.status})`);
  const providers = (await (await fetch(`${gw.url}/admin/providers`, { headers: auth })).json()) as {
    data: { id: string; type: string; enabled: boolean; breaker: string; recent: Record<string, number> }[];
    next_cursor: string | null;
  };
  t.same(
    providers.data.map((p) => p.id),
    ['echo', 'dead'],
    'every configured provider, in the file order',
  );
  const dead = providers.data.find((p) => p.id === 'dead')!;
  t.equal(dead.type, 'openai');
  t.equal(dead.enabled, true);
  t.ok(dead.recent.calls >= 1 && dead.recent.failures === dead.recent.calls, 'its failed calls are counted');
  t.equal(dead.recent.error_rate, 1);
  t.equal(providers.next_cursor, null);
  const models = (await (await fetch(`${gw.url}/admin/models`, { headers: auth })).json()) as {
    data: { id: string; glob: boolean; routes: { provider: string; upstream_model: string }[] }[];
  };
  t.match(models.data, [
    { id: 'echo', glob: false, routes: [{ provider: 'echo', upstream_model: 'echo-1' }] },
    { id: 'gone-*', glob: true, routes: [{ provider: 'dead', upstream_model: 'gpt-gone' }] },
  ]);
  const page1 = (await (await fetch(`${gw.url}/admin/models?limit=1`, { headers: auth })).json()) as {
    data: { id: string }[];
    next_cursor: string;
  };
  t.same(
    page1.data.map((m) => m.id),
    ['echo'],
  );
  const page2 = (await (
    await fetch(`${gw.url}/admin/models?limit=1&cursor=${page1.next_cursor}`, { headers: auth })
  ).json()) as { data: { id: string }[]; next_cursor: string | null };
  t.same(
    page2.data.map((m) => m.id),
    ['gone-*'],
  );
  t.equal(page2.next_cursor, null);
  await assertBadParams(t, (q) => fetch(`${gw.url}/admin/providers${q}`, { headers: auth }), [
    ...badPageQueries,
    ['?provider=dead', 'provider'],
  ]);
  t.equal((await fetch(`${gw.url}/admin/providers`)).status, 401, 'behind the admin gate');
});
