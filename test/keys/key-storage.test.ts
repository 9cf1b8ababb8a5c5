// Runtime keys on the sqlite driver (kept in the store's file: a gateway opened on it later knows
// them, and a second connection sees a rotation), and a runtime key whose id the config file takes
// over by a reload (the file wins).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/infra/config/load-config.ts';
import { Runtime } from '../../src/services/runtime/runtime.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { admin, ADMIN, chatStatus, type Created } from './key-helpers.ts';

t.test('sqlite: keys are kept in the file and seen by another connection to it', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'polygate-keys-')), 'polygate.db');
  const config = testConfig({ admin: { token: ADMIN }, storage: { driver: 'sqlite', path } });
  const first = await startInProcessApp(t, config);
  const made = await admin(first.url).json<Created>('POST', '/admin/keys', { id: 'kept', workspace: 'w' });
  t.equal(made.status, 201);
  const second = await startInProcessApp(t, config);
  t.equal(await chatStatus(second.url, made.body.secret), 200, 'opened later on the same file: known');
  const rotated = await admin(first.url).json<Created>('POST', '/admin/keys/kept/rotate', {});
  t.equal(await chatStatus(first.url, made.body.secret), 401);
  t.ok(
    await waitFor(
      'the rotation to reach the other connection',
      async () => ((await chatStatus(second.url, made.body.secret)) === 401 ? true : undefined),
      8000,
    ),
    'the old secret is refused through the other connection too',
  );
  t.equal(await chatStatus(second.url, rotated.body.secret), 200);
});

t.test('a reload that gives the file a runtime key id: the file wins', async (t) => {
  const config = testConfig({ admin: { token: ADMIN } });
  const app = await startInProcessApp(t, config);
  const made = await admin(app.url).json<Created>('POST', '/admin/keys', { id: 'taken-later', workspace: 'w' });
  t.equal(await chatStatus(app.url, made.body.secret), 200);
  const keys = [...(config.keys as object[]), { id: 'taken-later', secret: 'sk-file-secret-9999', workspace: 'ws1' }];
  app.services.ref.current = new Runtime(parseConfig(stringify({ ...config, keys }), 'reloaded.yaml'));
  t.equal(await chatStatus(app.url, made.body.secret), 401, 'the runtime key of that id is no longer used');
  t.equal(await chatStatus(app.url, 'sk-file-secret-9999'), 200, "the file's key is");
  const list = await admin(app.url).json<{ data: { id: string; source: string }[] }>('GET', '/admin/keys');
  t.same(
    list.body.data.filter((k) => k.id === 'taken-later').map((k) => k.source),
    ['config'],
    'listed once, as the file has it',
  );
});
