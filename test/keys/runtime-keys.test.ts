// Issue #25 item 1: keys created, changed, rotated, disabled and deleted at runtime through the
// admin API, used by the official OpenAI SDK against a running gateway, without a reload.
import t from 'tap';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { admin, ADMIN, chatError, chatStatus, type Created } from './key-helpers.ts';

const app = await startInProcessApp(t, testConfig({ admin: { token: ADMIN }, log: { content: true } }));
const a = admin(app.url);
const secrets: string[] = [];

const create = async (body: Record<string, unknown>): Promise<Created> => {
  const r = await a.json<Created>('POST', '/admin/keys', body);
  if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
  secrets.push(r.body.secret);
  return r.body;
};

t.test('a created key works with the OpenAI SDK at once, and its secret is shown only then', async (t) => {
  const made = await create({ id: 'dev-alice', workspace: 'team-a', labels: { owner: 'alice' } });
  t.match(made.secret, /^pg-[A-Za-z0-9_-]{43}$/);
  t.equal(made.key.secret_hint, made.secret.slice(-4));
  t.match(made.key, {
    id: 'dev-alice',
    workspace: 'team-a',
    source: 'runtime',
    disabled: false,
    labels: { owner: 'alice' },
  });
  t.equal(await chatStatus(app.url, made.secret), 200, 'accepted without a reload');

  const read = await a.call('GET', '/admin/keys/dev-alice');
  const readText = await read.text();
  t.equal(read.status, 200);
  t.notOk(readText.includes(made.secret), 'a read never shows the secret');
  t.notOk(readText.includes(made.secret.slice(3, 20)), 'nor a piece of it beyond the hint');
  const list = await a.call('GET', '/admin/keys');
  const listText = await list.text();
  t.notOk(listText.includes(made.secret), 'nor does the list');
  const ids = (JSON.parse(listText) as { data: { id: string; source: string }[] }).data.map(
    (k) => `${k.id}:${k.source}`,
  );
  t.same(ids, ['dev-alice:runtime', 'test:config', 'other:config'], 'runtime keys newest first, then the file');

  const again = await a.json('POST', '/admin/keys', { id: 'dev-alice', workspace: 'team-a' });
  t.equal(again.status, 409, 'an id that exists is a conflict');
  t.match(again.body, { error: { param: 'id' } });
});

t.test('a key without an id gets one; models and limits apply', async (t) => {
  const made = await create({ workspace: 'team-b', models: ['nothing-*'] });
  t.match(made.key.id, /^key-[0-9a-f]{16}$/);
  const err = await chatError(app.url, made.secret);
  t.equal(err.status, 403, 'a model outside the key is refused');
  const patched = await a.json('PATCH', `/admin/keys/${made.key.id}`, { models: ['echo'], limits: { rpm: 1 } });
  t.equal(patched.status, 200);
  t.match(patched.body, { models: ['echo'], limits: { rpm: 1, tpm: 0, concurrency: 0 } });
  t.equal(await chatStatus(app.url, made.secret), 200, 'the change took effect');
  t.equal(await chatStatus(app.url, made.secret), 429, 'and so did the rpm limit');
});

t.test('rotation: without grace the old secret is refused at once; with grace, until it ends', async (t) => {
  const made = await create({ id: 'rotating', workspace: 'team-a' });
  const r1 = await a.json<Created>('POST', '/admin/keys/rotating/rotate', {});
  t.equal(r1.status, 200);
  secrets.push(r1.body.secret);
  t.not(r1.body.secret, made.secret);
  t.equal(r1.body.key.previous_secret_valid_until, null);
  t.equal(await chatStatus(app.url, made.secret), 401, 'old secret refused at once');
  t.equal(await chatStatus(app.url, r1.body.secret), 200, 'new secret accepted');

  // The grace ends on the gateway's clock, moved here rather than waited for.
  const clock = app.services.keys;
  const realNow = clock.now;
  t.teardown(() => (clock.now = realNow));
  const r2 = await a.json<Created>('POST', '/admin/keys/rotating/rotate', { grace_seconds: 3600 });
  secrets.push(r2.body.secret);
  t.ok(r2.body.key.previous_secret_valid_until, 'the view says until when');
  t.equal(await chatStatus(app.url, r1.body.secret), 200, 'the replaced secret still works in its grace');
  t.equal(await chatStatus(app.url, r2.body.secret), 200, 'and so does the new one');
  t.equal(await chatStatus(app.url, made.secret), 401, 'a secret rotated away before stays refused');
  const base = realNow();
  clock.now = () => base + 3601_000;
  t.equal(await chatStatus(app.url, r1.body.secret), 401, 'refused once the grace is over');
  t.equal(await chatStatus(app.url, r2.body.secret), 200);
});

t.test('disable, enable, expiry and delete', async (t) => {
  const made = await create({ id: 'short-lived', workspace: 'team-a' });
  const off = await a.json('POST', '/admin/keys/short-lived/disable');
  t.match(off.body, { disabled: true });
  const err = await chatError(app.url, made.secret);
  t.equal(err.status, 401);
  t.match(err.message, /disabled/, 'the refusal says why');
  t.notOk(err.message.includes('short-lived'), 'without naming the key');
  await a.json('POST', '/admin/keys/short-lived/enable');
  t.equal(await chatStatus(app.url, made.secret), 200, 'enabled again');

  const past = new Date(Date.now() - 1000).toISOString();
  t.equal((await a.json('PATCH', '/admin/keys/short-lived', { expires_at: past })).status, 200);
  const expired = await chatError(app.url, made.secret);
  t.equal(expired.status, 401);
  t.match(expired.message, /expired at/);
  t.equal((await a.json('PATCH', '/admin/keys/short-lived', { expires_at: null })).status, 200);
  t.equal(await chatStatus(app.url, made.secret), 200, 'no expiry: accepted');

  t.equal((await a.call('DELETE', '/admin/keys/short-lived')).status, 204);
  t.equal(await chatStatus(app.url, made.secret), 401, 'deleted: refused');
  t.equal((await a.call('GET', '/admin/keys/short-lived')).status, 404);
  t.equal((await a.call('DELETE', '/admin/keys/short-lived')).status, 404);
});

t.test('keys of the config file are listed but read-only', async (t) => {
  const read = await a.json('GET', '/admin/keys/test');
  t.match(read.body, { id: 'test', source: 'config', workspace: 'ws1' });
  t.notOk(JSON.stringify(read.body).includes(TEST_KEY), 'no secret of the file either');
  for (const [method, path, body] of [
    ['PATCH', '/admin/keys/test', { models: ['echo'] }],
    ['POST', '/admin/keys/test/disable', undefined],
    ['POST', '/admin/keys/test/rotate', {}],
    ['DELETE', '/admin/keys/test', undefined],
    ['POST', '/admin/keys', { id: 'test', workspace: 'ws1' }],
  ] as const) {
    const r = await a.json<{ error: { message: string } }>(method, path, body);
    t.equal(r.status, 409, `${method} ${path}`);
    t.match(r.body.error.message, /config file/);
  }
  t.equal(await chatStatus(app.url, TEST_KEY), 200, 'and it still works');
});

t.test('no secret reaches the log', async (t) => {
  t.ok(secrets.length >= 5);
  const text = JSON.stringify(app.logs());
  t.ok(text.includes('/admin/keys'), 'the admin calls were logged');
  for (const s of secrets) t.notOk(text.includes(s), 'secret absent from the log');
});
