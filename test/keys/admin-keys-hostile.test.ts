// Issue #25, "Done when": every keys admin endpoint answers bad input with a 400 naming the field,
// refuses unknown fields and query parameters, bounds every string, and passes the hostile checks
// of the rest of the admin API (wrong or missing token, path tricks, huge inputs).
import t from 'tap';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { admin, ADMIN } from './key-helpers.ts';

// Every wrong token here must be a 401: the guessing throttle is test/app/admin-throttle.test.ts's.
const app = await startInProcessApp(
  t,
  testConfig({ admin: { token: ADMIN, wrong_tokens_per_minute: 10_000 }, limits: { max_body_bytes: 256 * 1024 } }),
);
const a = admin(app.url);
await a.json('POST', '/admin/keys', { id: 'target', workspace: 'ws-x' });

type Err = { error: { message: string; type: string; param: string | null } };

t.test('without the admin token every keys route is a 401', async (t) => {
  const routes: [string, string][] = [
    ['GET', '/admin/keys'],
    ['POST', '/admin/keys'],
    ['GET', '/admin/keys/target'],
    ['PATCH', '/admin/keys/target'],
    ['DELETE', '/admin/keys/target'],
    ['POST', '/admin/keys/target/rotate'],
    ['POST', '/admin/keys/target/disable'],
    ['GET', '/ADMIN/KEYS/'],
  ];
  for (const [method, path] of routes)
    for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${TEST_KEY}`, ADMIN, `Basic ${ADMIN}`]) {
      const r = await fetch(`${app.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify({ workspace: 'w' }),
      });
      t.equal(r.status, 401, `${method} ${path} with ${authorization?.slice(0, 12) ?? 'nothing'}`);
    }
  const still = await a.json('GET', '/admin/keys/target');
  t.equal(still.status, 200, 'nothing was changed or deleted');
});

t.test('bad fields: 400 naming the field', async (t) => {
  const cases: [string, string, unknown, string][] = [
    ['POST', '/admin/keys', [], 'body'],
    ['POST', '/admin/keys', {}, 'workspace'],
    ['POST', '/admin/keys', { workspace: 'w', colour: 'red' }, 'colour'],
    ['POST', '/admin/keys', { workspace: 'a b' }, 'workspace'],
    ['POST', '/admin/keys', { workspace: 'w', id: '../etc/passwd' }, 'id'],
    ['POST', '/admin/keys', { workspace: 'w', id: 'x'.repeat(129) }, 'id'],
    ['POST', '/admin/keys', { workspace: 'w', id: 7 }, 'id'],
    ['POST', '/admin/keys', { workspace: 'w', models: [] }, 'models'],
    ['POST', '/admin/keys', { workspace: 'w', models: ['ok', 3] }, 'models.1'],
    ['POST', '/admin/keys', { workspace: 'w', models: Array(257).fill('m') }, 'models'],
    ['POST', '/admin/keys', { workspace: 'w', models: ['has space'] }, 'models.0'],
    ['POST', '/admin/keys', { workspace: 'w', limits: { rpm: -1 } }, 'limits.rpm'],
    ['POST', '/admin/keys', { workspace: 'w', limits: { tpm: 1.5 } }, 'limits.tpm'],
    ['POST', '/admin/keys', { workspace: 'w', limits: { concurrency: '3' } }, 'limits.concurrency'],
    ['POST', '/admin/keys', { workspace: 'w', limits: { rpms: 3 } }, 'limits.rpms'],
    [
      'POST',
      '/admin/keys',
      { workspace: 'w', budget: { limits: [{ period: 'year', usd: 1 }] } },
      'budget.limits.0.period',
    ],
    ['POST', '/admin/keys', { workspace: 'w', budget: { limits: [{ period: 'day' }] } }, 'budget.limits.0'],
    [
      'POST',
      '/admin/keys',
      { workspace: 'w', budget: { limits: [{ period: 'day', usd: -2 }] } },
      'budget.limits.0.usd',
    ],
    [
      'POST',
      '/admin/keys',
      { workspace: 'w', budget: { limits: [{ period: 'day', usd: 1, soft_ratio: 2 }] } },
      'budget.limits.0.soft_ratio',
    ],
    [
      'POST',
      '/admin/keys',
      {
        workspace: 'w',
        budget: {
          limits: [
            { period: 'day', usd: 1 },
            { period: 'day', tokens: 5 },
          ],
        },
      },
      'budget.limits.1.period',
    ],
    ['POST', '/admin/keys', { workspace: 'w', budget: { limit: [] } }, 'budget.limit'],
    ['POST', '/admin/keys', { workspace: 'w', expires_at: 'tomorrow' }, 'expires_at'],
    ['POST', '/admin/keys', { workspace: 'w', expires_at: '2026-13-45T99:00:00Z' }, 'expires_at'],
    ['POST', '/admin/keys', { workspace: 'w', labels: ['a'] }, 'labels'],
    ['POST', '/admin/keys', { workspace: 'w', labels: { 'bad key': 'v' } }, 'labels'],
    ['POST', '/admin/keys', { workspace: 'w', labels: { k: 'v'.repeat(257) } }, 'labels.k'],
    ['POST', '/admin/keys', { workspace: 'w', labels: { k: 'line\nbreak' } }, 'labels.k'],
    [
      'POST',
      '/admin/keys',
      { workspace: 'w', labels: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) },
      'labels',
    ],
    ['PATCH', '/admin/keys/target', { workspace: 'moved' }, 'workspace'],
    ['PATCH', '/admin/keys/target', { secret: 'pg-mine' }, 'secret'],
    ['PATCH', '/admin/keys/target', { limits: { rpm: 1e10 } }, 'limits.rpm'],
    ['POST', '/admin/keys/target/rotate', { grace_seconds: -1 }, 'grace_seconds'],
    ['POST', '/admin/keys/target/rotate', { grace_seconds: 31 * 86400 }, 'grace_seconds'],
    ['POST', '/admin/keys/target/rotate', { grace: 10 }, 'grace'],
    ['POST', '/admin/keys/target/disable', { now: true }, 'now'],
    ['GET', '/admin/keys/bad%20id', undefined, 'id'],
  ];
  for (const [method, path, body, param] of cases) {
    const r = await a.json<Err>(method, path, body);
    t.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)}`);
    t.equal(r.body.error?.param, param, `names ${param}`);
    t.ok(r.body.error?.message.includes(param), `the message says ${param}: ${r.body.error?.message.slice(0, 120)}`);
    t.ok(r.body.error?.message.length < 400, 'the message is short');
  }
  const view = await a.json<{ workspace: string; limits: { rpm: number } }>('GET', '/admin/keys/target');
  t.match(view.body, { workspace: 'ws-x', limits: { rpm: 0 } }, 'no bad request changed the key');
});

t.test('unknown or repeated query parameters, bad pages and cursors: 400', async (t) => {
  const cases: [string, string, string][] = [
    ['GET', '/admin/keys?colour=red', 'colour'],
    ['GET', '/admin/keys?limit=0', 'limit'],
    ['GET', '/admin/keys?limit=501', 'limit'],
    ['GET', '/admin/keys?limit=ten', 'limit'],
    ['GET', '/admin/keys?limit=1&limit=2', 'limit'],
    ['GET', '/admin/keys?cursor=garbage', 'cursor'],
    ['GET', `/admin/keys?cursor=${'A'.repeat(600)}`, 'cursor'],
    ['GET', '/admin/keys?workspace=a%20b', 'workspace'],
    ['GET', '/admin/keys/target?verbose=1', 'verbose'],
    ['POST', '/admin/keys?dry_run=1', 'dry_run'],
    ['DELETE', '/admin/keys/target?force=1', 'force'],
  ];
  for (const [method, path, param] of cases) {
    const r = await a.json<Err>(method, path, method === 'POST' ? { workspace: 'w' } : undefined);
    t.equal(r.status, 400, `${method} ${path.slice(0, 60)}`);
    t.equal(r.body.error?.param, param);
  }
  t.equal(
    (await a.call('GET', '/admin/keys/target')).status,
    200,
    'the DELETE with an unknown parameter deleted nothing',
  );
});

t.test('pages: limit and cursor walk the list once, newest first', async (t) => {
  // Each one a second later on the gateway's clock: two keys made in one millisecond sort by id.
  const keys = app.services.keys;
  const realNow = keys.now;
  const base = realNow();
  try {
    for (let i = 0; i < 5; i++) {
      keys.now = () => base + i * 1000;
      await a.json('POST', '/admin/keys', { id: `page-${i}`, workspace: 'pages' });
    }
  } finally {
    keys.now = realNow;
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `/admin/keys?workspace=pages&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
    const r = await a.json<{ data: { id: string }[]; next_cursor: string | null }>('GET', q);
    t.equal(r.status, 200);
    t.ok(r.body.data.length <= 2);
    seen.push(...r.body.data.map((k) => k.id));
    cursor = r.body.next_cursor;
  } while (cursor);
  t.same(seen, ['page-4', 'page-3', 'page-2', 'page-1', 'page-0']);
});

t.test('path tricks and unknown ids', async (t) => {
  const paths: [string, string, number][] = [
    ['GET', '/admin/keys/..%2Ftest', 400],
    ['GET', '/admin/keys/%2e%2e', 404],
    ['GET', '/admin/keys/nobody', 404],
    ['DELETE', '/admin/keys/nobody', 404],
    ['POST', '/admin/keys/nobody/rotate', 404],
    ['GET', '/admin/keys/target/extra/parts', 404],
    ['GET', '/admin/keys/test%00', 400],
    ['GET', `/admin/keys/${'k'.repeat(5000)}`, 400],
  ];
  for (const [method, path, status] of paths) {
    const r = await a.call(method, path, method === 'POST' ? {} : undefined);
    t.equal(r.status, status, `${method} ${path.slice(0, 40)}`);
    const text = await r.text();
    t.notOk(text.includes('\u0000'), 'no control character echoed');
    t.ok(text.length < 1000, 'a short answer');
  }
  const r = await a.call('GET', '/admin/keys/test');
  t.equal(r.status, 200, 'the config key reads through its plain path');
});

t.test('a budget with the usage ledger off is refused, not silently unenforced', async (t) => {
  const off = await startInProcessApp(t, testConfig({ admin: { token: ADMIN }, usage: { ledger: false } }));
  const r = await admin(off.url).json<Err>('POST', '/admin/keys', {
    workspace: 'w',
    budget: { limits: [{ period: 'day', usd: 1 }] },
  });
  t.equal(r.status, 400);
  t.equal(r.body.error.param, 'budget');
  t.match(r.body.error.message, /usage\.ledger/);
  t.equal((await admin(off.url).json('POST', '/admin/keys', { workspace: 'w' })).status, 201, 'without one: made');
});

t.test('huge and non-JSON bodies', async (t) => {
  const huge = await a.call(
    'POST',
    '/admin/keys',
    JSON.stringify({ workspace: 'w', labels: { k: 'x'.repeat(300_000) } }),
  );
  t.equal(huge.status, 413, 'past limits.max_body_bytes: 413');
  const big = await a.json<Err>('POST', '/admin/keys', { workspace: 'w', labels: { k: 'x'.repeat(100_000) } });
  t.equal(big.status, 400, 'within the body limit, past the field bound: 400');
  t.equal(big.body.error.param, 'labels.k');
  t.ok(big.body.error.message.length < 400, 'the value is not echoed');
  const text = await a.call('POST', '/admin/keys', 'workspace=w', { 'content-type': 'text/plain' });
  t.equal(text.status, 415);
  const bad = await a.call('POST', '/admin/keys', '{"workspace":', {});
  t.equal(bad.status, 400, 'broken JSON');
  const deep = await a.call('POST', '/admin/keys', `{"workspace":"w","labels":${'['.repeat(5000)}${']'.repeat(5000)}}`);
  t.equal(deep.status, 400, 'deep JSON');
});
