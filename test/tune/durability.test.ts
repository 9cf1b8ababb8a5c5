// With the sqlite driver, a task in progress and a callback not yet delivered survive kill -9:
// after a restart polling and delivery resume, nothing is lost, and the delivery id stays the same.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import { startHookReceiver } from './hook-receiver.ts';
import { getTask, startGateway, submit, untilFinished, upstreamConfig, waitFor } from './tune-helpers.ts';

const up = await startTuneUpstream();
let accept = false;
const receiver = await startHookReceiver((path) => (accept || path === '/always-ok' ? 200 : 500));
const hookBase = receiver.url;

const dir = mkdtempSync(join(tmpdir(), 'polygate-durable-'));
const configFile = join(dir, 'gateway.yaml');
writeFileSync(
  configFile,
  stringify(
    upstreamConfig(up, {
      storage: { driver: 'sqlite', path: join(dir, 'data', 'polygate.db') },
      outbound: { allow_private_addresses: true },
      tune: { callback: { secret: 'whsec-durable', backoff_ms: 50, max_backoff_ms: 200, max_attempts: 100 } },
    }),
  ),
);

let gw = await startGateway(configFile);
t.teardown(async () => {
  await gw.stop();
  await up.close();
  await receiver.close();
});

const at = receiver.at;

t.test('a task in progress at kill -9 finishes after the restart, and calls back once', async (t) => {
  up.script({ statuses: ['IN_PROGRESS', 'SUCCESS'], hold: true });
  const id = await submit(gw, '/tune/submit/music', {
    prompt: 'p',
    title: 'Survivor',
    tags: 'pop',
    notify_hook: `${hookBase}/always-ok`,
  });
  const upId = up.submissions().at(-1)!.id;
  await waitFor('the first poll', async () => (up.fetched(upId) >= 1 ? true : undefined));
  t.equal((await getTask(gw, id)).status, 'IN_PROGRESS');

  t.equal(await gw.stop('SIGKILL'), null, 'killed, not exited');
  up.release(upId);
  gw = await startGateway(configFile);

  const done = await untilFinished(gw, id);
  t.equal(done.status, 'SUCCESS');
  t.equal(done.task_id, id, 'same polygate task id after the restart');
  const [cb] = await waitFor('the callback', async () => (at('/always-ok').length > 0 ? at('/always-ok') : undefined));
  t.equal(JSON.parse(cb.body).task_id, id);
  await new Promise((r) => setTimeout(r, 200));
  t.equal(at('/always-ok').length, 1, 'delivered once');
});

t.test(
  'a callback not yet delivered at kill -9 is delivered after the restart with the same delivery id',
  async (t) => {
    accept = false;
    const id = await submit(gw, '/tune/submit/music', {
      prompt: 'p',
      title: 'Patient',
      tags: 'pop',
      notify_hook: `${hookBase}/later`,
    });
    await waitFor('a failed attempt', async () => (at('/later').length >= 1 ? true : undefined));
    await gw.stop('SIGKILL');
    const before = at('/later').length;
    accept = true;
    gw = await startGateway(configFile);
    await waitFor('the delivery after the restart', async () =>
      at('/later').length > before && at('/later').at(-1)!.headers['x-polygate-attempt'] !== undefined
        ? true
        : undefined,
    );
    const attempts = at('/later');
    t.equal(
      new Set(attempts.map((a) => a.headers['x-polygate-delivery'])).size,
      1,
      'one delivery id across the restart',
    );
    t.equal(JSON.parse(attempts.at(-1)!.body).task_id, id);
    await new Promise((r) => setTimeout(r, 300));
    t.equal(at('/later').length, attempts.length, 'nothing more once accepted');
    t.equal((await getTask(gw, id)).status, 'SUCCESS');
  },
);
