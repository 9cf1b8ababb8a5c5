// Issue #30, finding 11: an unauthenticated `OPTIONS /admin/usage` answered 200 with an `allow`
// list (and other methods a 405 naming the allowed ones) before the admin token was checked. Now
// every method on every path under /admin answers 401 without the token, before routing.
import t from 'tap';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const ADMIN = 'admin-token-abcdef0123456789';
// Every wrong token here must be a 401: the guessing throttle is test/app/admin-throttle.test.ts's.
const app = await startInProcessApp(t, testConfig({ admin: { token: ADMIN, wrong_tokens_per_minute: 10_000 } }));

const methods = ['OPTIONS', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'PROPFIND'];
const paths = ['/admin/usage', '/admin/budgets', '/ADMIN/usage/', '/admin/unknown', '/admin', '/admin/'];

t.test('without the admin token every method on every admin path is a 401 with no allow list', async (t) => {
  for (const path of paths)
    for (const method of methods)
      for (const authorization of [undefined, `Bearer ${TEST_KEY}`, 'Bearer wrong']) {
        const r = await fetch(`${app.url}${path}`, { method, headers: authorization ? { authorization } : {} });
        t.equal(r.status, 401, `${method} ${path} ${authorization ?? 'no credential'}`);
        t.equal(r.headers.get('allow'), null, 'no allow header');
        const text = await r.text();
        t.notMatch(text, /GET|allowed:/, 'the answer names no method');
      }
});

t.test('with the token the routes answer as before', async (t) => {
  const ok = await fetch(`${app.url}/admin/usage`, { headers: { authorization: `Bearer ${ADMIN}` } });
  t.equal(ok.status, 200);
  const options = await fetch(`${app.url}/admin/usage`, {
    method: 'OPTIONS',
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  t.equal(options.status, 200);
  t.match(options.headers.get('allow'), /GET/);
});

t.test('with no admin token configured every admin path is a 404', async (t) => {
  const off = await startInProcessApp(t, testConfig({}));
  for (const method of ['OPTIONS', 'GET', 'DELETE']) {
    const r = await fetch(`${off.url}/admin/usage`, { method });
    t.equal(r.status, 404, method);
    t.equal(r.headers.get('allow'), null);
  }
});
