// A config reload swaps the runtime and keeps the services (src/services/runtime/services.ts): in an app built in
// this process, the real reloader (src/app/reload-config.ts) brings in a new model while the
// breaker it had opened stays open and the key's rpm window keeps its count.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { startConfigReload } from '../../src/app/reload-config.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';
const LIMITED = 'sk-reload-rpm-00001';

const up = await startOpenAIChatUpstream();
t.teardown(() => up.close());
const configOf = (models: Record<string, unknown>): Record<string, unknown> =>
  testConfig({
    keys: [
      { id: 'test', secret: TEST_KEY, workspace: 'ws1', models: ['*'] },
      { id: 'limited', secret: LIMITED, workspace: 'ws1', models: ['*'], limits: { rpm: 2 } },
    ],
    providers: { flaky: { type: 'openai', api: 'chat_completions', base_url: up.url, api_key: 'sk-upstream-openai' } },
    models: {
      guarded: {
        breaker: { consecutive_failures: 1, cooldown_ms: 600_000 },
        routes: [{ provider: 'flaky', model: 'up-m' }],
      },
      ...models,
    },
  });
const file = join(mkdtempSync(join(tmpdir(), 'polygate-reload-')), 'gateway.yaml');
writeFileSync(file, stringify(configOf({})));
const app = await startInProcessApp(t, configOf({}));
const reloader = startConfigReload(file, app.services.ref, app.services.log);
t.teardown(() => reloader.close());

const chat = (model: string, key = TEST_KEY): Promise<Response> =>
  fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }] }),
  });

t.test('after a reload: the new runtime answers, the breaker and the rpm window are kept', async (t) => {
  up.script({ kind: 'error', status: 500 });
  t.ok((await chat('guarded')).status >= 500);
  t.equal((await chat('guarded')).status, 503, 'breaker open before the reload');
  t.equal((await chat('echo', LIMITED)).status, 200, 'one of the key rpm 2 spent');
  t.equal((await chat('added')).status, 404, 'no model `added` yet');

  const before = app.services.ref.current;
  writeFileSync(file, stringify(configOf({ added: { routes: [{ provider: 'echo', model: 'echo-2' }] } })));
  await reloader.reload('test');
  t.not(app.services.ref.current, before, 'a new runtime is in force');
  const added = await chat('added');
  t.equal(added.status, 200, 'the reloaded config answers');
  t.equal(((await added.json()) as Json).choices[0].message.content, 'ping');

  const skipped = await chat('guarded');
  t.equal(skipped.status, 503, 'the breaker is still open after the reload');
  t.match(((await skipped.json()) as Json).error.message, /circuit breaker/);
  t.equal(up.requests.length, 1, 'the upstream was not called again');
  t.equal((await chat('echo', LIMITED)).status, 200, 'second request of the minute');
  t.equal((await chat('echo', LIMITED)).status, 429, 'the window counted the request made before the reload');
});
