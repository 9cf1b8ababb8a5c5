// Issue #25: two gateway processes on one real Redis. A key created through one is accepted by
// the other without a reload; a rotated secret, a disabled key and a deleted key are refused on
// both; a process started later knows every key from its first request. Waits poll for the
// change to show (it must happen), never time it.
import t from 'tap';
import { startRedis } from '../redis/redis-server.ts';
import { startGateway, testConfig } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { admin, ADMIN, chatStatus, type Created } from './key-helpers.ts';
import { openRaw } from '../responses-ws/raw-socket.ts';

const redis = await startRedis();
const config = testConfig({ storage: { driver: 'redis', url: redis.url }, admin: { token: ADMIN } });
const [one, two] = await Promise.all([startGateway(config), startGateway(config)]);
t.teardown(async () => {
  await Promise.all([one.stop(), two.stop()]);
  await redis.stop();
});
const secrets: string[] = [];

/** Until the status of a call with `secret` through `url` is `want` (bounded: a broken run fails). */
const until = (url: string, secret: string, want: number) =>
  waitFor(`status ${want} at ${url}`, async () => ((await chatStatus(url, secret)) === want ? true : undefined), 8000);

t.test('created on one instance, accepted by the other', async (t) => {
  const made = await admin(one.url).json<Created>('POST', '/admin/keys', { id: 'shared-1', workspace: 'team-a' });
  t.equal(made.status, 201);
  secrets.push(made.body.secret);
  t.equal(await chatStatus(one.url, made.body.secret), 200, 'on the instance that created it at once');
  t.ok(await until(two.url, made.body.secret, 200), 'and on the other without a reload');
  const read = await admin(two.url).json<{ id: string; source: string }>('GET', '/admin/keys/shared-1');
  t.match(read.body, { id: 'shared-1', source: 'runtime' }, 'the other instance lists it');
});

t.test('rotated on one, the old secret is refused on both', async (t) => {
  const old = secrets[0];
  const rotated = await admin(two.url).json<Created>('POST', '/admin/keys/shared-1/rotate', { grace_seconds: 0 });
  t.equal(rotated.status, 200);
  secrets.push(rotated.body.secret);
  t.equal(await chatStatus(two.url, old), 401, 'refused at once where it was rotated');
  t.ok(await until(one.url, old, 401), 'and refused on the other');
  t.equal(await chatStatus(one.url, rotated.body.secret), 200, 'where the new secret works');
  t.equal(await chatStatus(two.url, rotated.body.secret), 200);
});

t.test('disabled and deleted on one, refused on both', async (t) => {
  const secret = secrets[1];
  t.equal((await admin(one.url).call('POST', '/admin/keys/shared-1/disable')).status, 200);
  t.ok(await until(two.url, secret, 401), 'disabled: refused on the other');
  t.equal((await admin(two.url).call('POST', '/admin/keys/shared-1/enable')).status, 200);
  t.ok(await until(one.url, secret, 200), 'enabled again on the other');
  t.equal((await admin(two.url).call('DELETE', '/admin/keys/shared-1')).status, 204);
  t.ok(await until(one.url, secret, 401), 'deleted: refused on the other');
});

t.test('an instance started later knows the keys from its first request', async (t) => {
  const made = await admin(one.url).json<Created>('POST', '/admin/keys', { id: 'shared-2', workspace: 'team-b' });
  secrets.push(made.body.secret);
  const three = await startGateway(config);
  t.teardown(() => three.stop());
  t.equal(await chatStatus(three.url, made.body.secret), 200);
});

t.test('a runtime key opens a Responses WebSocket; a disabled one is refused at the handshake', async (t) => {
  const made = await admin(one.url).json<Created>('POST', '/admin/keys', { id: 'socket-1', workspace: 'team-s' });
  secrets.push(made.body.secret);
  const sock = await openRaw(one, made.body.secret);
  sock.ws.send(JSON.stringify({ type: 'response.create', model: 'echo', input: 'hi' }));
  t.match(await sock.next(), { type: 'response.created' });
  sock.ws.close();
  await admin(one.url).call('POST', '/admin/keys/socket-1/disable');
  await t.rejects(openRaw(one, made.body.secret), { message: 'handshake answered 401' });
});

t.test('two operators changing one key on two instances lose neither change', async (t) => {
  const patches = await Promise.all([
    admin(one.url).json('PATCH', '/admin/keys/shared-2', { labels: { a: '1' } }),
    admin(two.url).json('PATCH', '/admin/keys/shared-2', { limits: { rpm: 7 } }),
  ]);
  t.same(
    patches.map((p) => p.status),
    [200, 200],
  );
  const read = await admin(one.url).json<{ labels: Record<string, string>; limits: { rpm: number } }>(
    'GET',
    '/admin/keys/shared-2',
  );
  t.match(read.body, { labels: { a: '1' }, limits: { rpm: 7 } }, 'both changes kept (compare-and-set on the revision)');
});

t.test('no secret in either log', async (t) => {
  for (const gw of [one, two]) {
    await gw.logged(/admin\/keys\/:id/, 5000);
    const out = gw.output();
    t.ok(out.includes('/admin/keys'), 'admin calls are in the log');
    for (const s of secrets) t.notOk(out.includes(s), 'secret absent');
  }
});
