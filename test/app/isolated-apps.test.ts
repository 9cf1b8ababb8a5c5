// Two apps in one process, with different configs but the same provider, model and key names:
// each has its own services (src/services/runtime/services.ts), so what one learns or counts never reaches the
// other. A breaker one app opened, a key's rpm one app spent and a response one app stored are
// all invisible to the other; a control app that is handed the first one's service sees them,
// which shows each check can fail.
import t from 'tap';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';
const LIMITED = 'sk-isolated-rpm-0001';

const upstreams: Emulator[] = [];
t.teardown(() => Promise.all(upstreams.map((u) => u.close())));

/** An app whose provider `flaky` is an emulator of its own; `rpm` and `failures` differ per app. */
async function appWith(
  rpm: number,
  failures: number,
  share?: Parameters<typeof startInProcessApp>[2],
): Promise<{ app: InProcessApp; up: Emulator }> {
  const up = await startOpenAIChatUpstream();
  upstreams.push(up);
  const config = testConfig({
    keys: [
      { id: 'test', secret: TEST_KEY, workspace: 'ws1', models: ['*'] },
      { id: 'limited', secret: LIMITED, workspace: 'ws1', models: ['*'], limits: { rpm } },
    ],
    providers: { flaky: { type: 'openai', api: 'chat_completions', base_url: up.url, api_key: 'sk-upstream-openai' } },
    models: {
      guarded: {
        breaker: { consecutive_failures: failures, cooldown_ms: 600_000 },
        routes: [{ provider: 'flaky', model: 'up-m' }],
      },
    },
  });
  return { app: await startInProcessApp(t, config, share), up };
}

const chat = (app: InProcessApp, model: string, key = TEST_KEY): Promise<Response> =>
  fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }] }),
  });

const one = await appWith(1, 1);
const two = await appWith(5, 3);

t.test('a breaker opened in one app is closed in the other', async (t) => {
  one.up.script({ kind: 'error', status: 500, message: 'down' });
  t.ok((await chat(one.app, 'guarded')).status >= 500, 'app 1: the upstream failure is answered');
  const skipped = await chat(one.app, 'guarded');
  t.equal(skipped.status, 503, 'app 1: its breaker for flaky/up-m is open');
  t.match(((await skipped.json()) as Json).error.message, /circuit breaker/);
  t.equal(one.up.requests.length, 1, 'app 1 no longer calls its upstream');
  t.equal(one.app.services.breakers.of('flaky', 'up-m').state, 'open');

  const res = await chat(two.app, 'guarded');
  t.equal(res.status, 200, 'app 2: same provider and upstream model names, its own closed breaker');
  t.equal(((await res.json()) as Json).choices[0].message.content, 'ping');
  t.equal(two.up.requests.length, 1, 'app 2 called its upstream');
  t.equal(two.app.services.breakers.of('flaky', 'up-m').state, 'closed');

  const control = await appWith(5, 3, { breakers: one.app.services.breakers });
  t.equal(
    (await chat(control.app, 'guarded')).status,
    503,
    'control: an app handed app 1 breakers finds the route open',
  );
  t.equal(control.up.requests.length, 0);
});

t.test("a key's rpm spent in one app is whole in the other", async (t) => {
  t.equal((await chat(one.app, 'echo', LIMITED)).status, 200, 'app 1: first request of the minute');
  const refused = await chat(one.app, 'echo', LIMITED);
  t.equal(refused.status, 429, 'app 1: rpm 1 spent');
  t.match(((await refused.json()) as Json).error.message, /'limited'.*1 requests per minute/);

  for (let i = 0; i < 5; i++)
    t.equal((await chat(two.app, 'echo', LIMITED)).status, 200, `app 2: request ${i + 1} of its rpm 5`);
  t.equal((await chat(two.app, 'echo', LIMITED)).status, 429, 'app 2 counts its own window');

  const control = await appWith(1, 3, { rateCounter: one.app.services.rateCounter });
  t.equal(
    (await chat(control.app, 'echo', LIMITED)).status,
    429,
    'control: an app with rpm 1 handed app 1 counters finds the minute spent',
  );
});

t.test('a response stored by one app is not in the other', async (t) => {
  const create = await fetch(`${one.app.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', input: 'remember me', store: true }),
  });
  t.equal(create.status, 200);
  const id = ((await create.json()) as Json).id as string;
  const get = (app: InProcessApp): Promise<Response> =>
    fetch(`${app.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });

  const own = await get(one.app);
  t.equal(own.status, 200, 'app 1 reads back what it stored');
  t.match(((await own.json()) as Json).output, [
    { type: 'message', content: [{ type: 'output_text', text: 'remember me' }] },
  ]);
  const other = await get(two.app);
  t.equal(other.status, 404, 'app 2 has its own store: no such response');
  t.equal(((await other.json()) as Json).error.type, 'invalid_request_error', "in the Responses family's error shape");

  const control = await appWith(5, 3, { store: one.app.services.store });
  t.equal((await get(control.app)).status, 200, 'control: an app handed app 1 store finds it');
});
