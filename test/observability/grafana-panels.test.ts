// Done-when of issue #8: a real Prometheus scrapes a running polygate (with the metrics bearer
// token), the official SDKs drive every landed family through every translation path, and then
// every panel query of every shipped Grafana board runs through Prometheus's HTTP API and returns
// data. Along the way: the request log line, the /metrics token check, label bounds, promtool.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { labelValuesQuery, loadDashboards, panelQueries } from './dashboards.ts';
import { promtool, promtoolBin, scrapeConfig, startPrometheus, waitFor, type PromSample } from './prometheus.ts';
import {
  chatModelOf,
  chatUpstreams,
  families,
  fallbackModel,
  startMusicUpstream,
  type FamilyTraffic,
  type TrafficEnv,
} from './traffic.ts';

const METRICS_TOKEN = 'metrics-token-for-prometheus-only';

// Upstreams, a notify_hook receiver, polygate, Prometheus.
const upstreams = await Promise.all(chatUpstreams.map(async (u) => ({ u, ...(await u.start()) })));
const music = await startMusicUpstream();
const callbacks = new Set<string>();
const receiver = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    const id = (JSON.parse(body) as { task_id?: string }).task_id;
    if (id) callbacks.add(id);
    res.writeHead(200).end();
  });
});
await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));

const musicConfig = music.config as { providers: Record<string, unknown>; models: Record<string, unknown> };
const config = testConfig({
  providers: {
    ...Object.fromEntries(upstreams.map((s) => [s.u.name, s.provider])),
    // Port 1 on loopback refuses connections: every call through it falls back.
    dead: {
      type: 'openai',
      base_url: 'http://127.0.0.1:1/v1',
      api_key: 'sk-upstream-dead-secret',
      api: 'chat_completions',
    },
    speech: { type: 'local-speech' },
    ...musicConfig.providers,
  },
  models: {
    ...Object.fromEntries(
      upstreams.map((s) => [chatModelOf(s.u), { routes: [{ provider: s.u.name, model: `${s.u.name}-model` }] }]),
    ),
    [fallbackModel]: {
      routes: [
        { provider: 'dead', model: 'gone' },
        { provider: 'echo', model: 'echo-1' },
      ],
    },
    'tts-1': { routes: [{ provider: 'speech', model: 'espeak' }] },
    ...musicConfig.models,
  },
  tune: {
    music_models: music.models,
    default_model: music.models[0],
    poll_interval_ms: 50,
    sandbox_delay_ms: 100,
    task_deadline_s: 60,
    callback: { backoff_ms: 50, max_attempts: 3 },
  },
  outbound: { allow_private_addresses: true },
  metrics: { bearer_token: METRICS_TOKEN },
});
// The Spend board: every chat model priced but the fallback one (so unpriced requests show too),
// and a budget on the test key that the traffic stays far under.
const modelNames = Object.keys(config.models as object).filter((m) => m !== fallbackModel);
config.usage = {
  prices: {
    models: Object.fromEntries(
      modelNames.map((m) => [m, { input: 3, output: 15, per_character: 0.00001, per_second: 0.001, per_task: 0.01 }]),
    ),
  },
  budgets: { test: { usd_per_day: 1000, tokens_per_month: 100_000_000 } },
};
const gw = await startInProcessGateway(config);
const prom = await startPrometheus(scrapeConfig(`127.0.0.1:${gw.port}`, METRICS_TOKEN));
t.teardown(async () => {
  await prom.stop();
  await gw.stop();
  await Promise.all([
    ...upstreams.map((s) => s.close()),
    music.close(),
    new Promise<void>((ok) => receiver.close(() => ok())),
  ]);
});

const scrape = (token?: string): Promise<Response> =>
  fetch(`${gw.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const metricsText = async (): Promise<string> => (await scrape(METRICS_TOKEN)).text();

/** Sum of every sample of one metric in the text format. */
function sumOf(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Waits until Prometheus holds everything polygate has counted so far. */
async function prometheusCaughtUp(): Promise<void> {
  const want = sumOf(await metricsText(), 'polygate_requests_total');
  let seen = 0;
  await waitFor(
    async () => {
      const r = await prom.query('sum(polygate_requests_total)');
      seen = Number(r.data?.result[0]?.value?.[1] ?? 0);
      return seen >= want;
    },
    () => `Prometheus saw ${seen} requests, polygate counted ${want}`,
  );
}

t.test('the scrape config passes promtool, and Prometheus scrapes polygate with the bearer token', async (t) => {
  const check = promtool('check', 'config', prom.configFile);
  t.equal(check.code, 0, check.output);
  type Targets = {
    data: { activeTargets: Array<{ health: string; lastError: string; labels: Record<string, string> }> };
  };
  let last: Targets | undefined;
  await waitFor(
    async () => {
      last = await prom.api<Targets>('/api/v1/targets');
      return last.data.activeTargets.some((x) => x.health === 'up');
    },
    () => `target not up: ${JSON.stringify(last)}`,
  );
  t.match(last?.data.activeTargets[0], { health: 'up', lastError: '', labels: { job: 'polygate' } });
});

t.test('/metrics asks for the configured bearer token', async (t) => {
  t.equal((await scrape()).status, 401, 'no token');
  t.equal((await scrape('wrong-token')).status, 401, 'a wrong token');
  t.equal((await scrape(`${METRICS_TOKEN}x`)).status, 401, 'the token with a character more');
  const ok = await scrape(METRICS_TOKEN);
  t.equal(ok.status, 200);
  t.match(ok.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
});

// Which families and upstreams have landed: a family's route answers something other than the
// "no route" 404, an upstream's model answers something other than "no provider can serve it".
const env: TrafficEnv = {
  url: gw.url,
  key: TEST_KEY,
  chatModels: [],
  musicModels: music.models,
  hookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  callbackFor: (id) =>
    waitFor(
      async () => callbacks.has(id),
      () => `no callback for task ${id}`,
    ),
};
const landed: FamilyTraffic[] = [];
for (const f of families) {
  const probe = f.probe(env);
  const res = await fetch(gw.url + probe.path, {
    method: 'POST',
    headers: { ...probe.headers, 'content-type': 'application/json' },
    body: '{}',
  });
  const text = await res.text();
  if (!(res.status === 404 && /no route/.test(text))) landed.push(f);
}
for (const s of upstreams) {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: chatModelOf(s.u), max_tokens: 16, messages: [{ role: 'user', content: 'probe' }] }),
  });
  const text = await res.text();
  if (!(res.status === 503 && /no provider that can serve/.test(text))) env.chatModels.push(chatModelOf(s.u));
}

t.test('the core families and upstreams are there to drive', async (t) => {
  t.comment(`families: ${landed.map((f) => f.family).join(', ')}; chat models: ${env.chatModels.join(', ')}`);
  t.ok(
    landed.some((f) => f.family === 'messages') && landed.some((f) => f.family === 'chat'),
    'Messages and Chat Completions answer',
  );
  t.ok(
    ['via-echo', 'via-anthropic', 'via-openai-chat'].every((m) => env.chatModels.includes(m)),
    'echo, Anthropic and OpenAI Chat upstreams answer',
  );
});

// Two rounds: the first creates each path's series, the second moves them, so rate() over the
// panel window sees an increase on every path (as it would under steady traffic).
for (const round of [1, 2]) {
  await t.test(`round ${round}: the official SDKs through every landed family and path`, async (t) => {
    await Promise.all(landed.map((f) => f.drive(t, env, round)));
    await prometheusCaughtUp();
  });
}

t.test('every panel query of every shipped board returns data from Prometheus', async (t) => {
  for (const board of loadDashboards()) {
    await t.test(board.file, async (t) => {
      for (const q of panelQueries(board)) {
        const r = await prom.query(q.expr);
        const what = `${q.panel} [${q.refId}]`;
        t.equal(r.status, 'success', `${what}: parses (${r.error ?? 'ok'})`);
        const result = r.data?.result ?? [];
        t.ok(result.length > 0, `${what}: returns series`, { expr: q.expr });
        const values = result.flatMap((s: PromSample) => (s.value ? [Number(s.value[1])] : []));
        t.ok(values.some(Number.isFinite), `${what}: with a number to plot`, { expr: q.expr, values });
      }
      for (const v of board.json.templating?.list ?? []) {
        const lv = labelValuesQuery(v);
        if (!lv) continue;
        const r = await prom.api<{ status: string; data: string[] }>(
          `/api/v1/label/${lv.label}/values?match[]=${encodeURIComponent(lv.metric)}`,
        );
        t.ok(
          r.status === 'success' && r.data.length > 0,
          `variable ${v.name}: label_values(${lv.metric}, ${lv.label}) lists values`,
        );
      }
    });
  }
});

t.test('labels stay bounded: config names only, no ids, no paths', async (t) => {
  const text = await metricsText();
  const models = new Set(Object.keys(config.models as object));
  const providers = new Set([...Object.keys(config.providers as object), 'none']);
  const keys = new Set((config.keys as Array<{ id: string }>).map((k) => k.id));
  for (const line of text.split('\n')) {
    const m = /^(polygate_[a-z_]+)\{(.*)\} /.exec(line);
    if (!m || /^polygate_(nodejs|process)_/.test(m[1])) continue;
    for (const [, label, value] of m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (label === 'model' && !models.has(value)) t.fail(`${m[1]}: model "${value}" is not a configured model`);
      if (label === 'provider' && !providers.has(value))
        t.fail(`${m[1]}: provider "${value}" is not a configured provider`);
      if (label === 'key' && !keys.has(value)) t.fail(`${m[1]}: key "${value}" is not a configured key id`);
      if (/[0-9a-f]{8}-[0-9a-f]{4}-|\//i.test(value)) t.fail(`${m[1]}: ${label}="${value}" looks like an id or a path`);
    }
  }
  t.match(
    text,
    /polygate_tokens_total\{family="messages",provider="anthropic",model="via-anthropic",kind="input"\} [1-9]/,
    'tokens per family, provider and configured model',
  );
  t.match(
    text,
    /polygate_translation_warnings_total\{inbound_format="anthropic-messages",upstream_format="openai-chat",field="top_k"\} [1-9]/,
    'a dropped field is counted by name',
  );
  t.match(text, /polygate_fallbacks_total\{provider="dead",cause="[^"]+"\} [1-9]/, 'fallbacks are counted');
});

t.test("promtool check metrics finds nothing wrong with polygate's own metrics", async (t) => {
  const r = spawnSync(promtoolBin, ['check', 'metrics'], { input: await metricsText(), encoding: 'utf8' });
  const problems = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
  // prom-client's default Node metrics name three gauges *_total; they are not polygate's to rename.
  const ours = problems.filter((l) => !/^polygate_nodejs_active_(handles|requests|resources)_total /.test(l));
  t.same(ours, [], 'no lint problem outside prom-client defaults');
});

t.test(
  'one JSON log line per request: id, family, formats, provider, model, status, durations, tokens; no secrets, no content',
  async (t) => {
    const send = (id: string, stream: boolean) =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'x-api-key': TEST_KEY,
          'anthropic-version': '2023-06-01',
          'content-type': 'application/json',
          'x-request-id': id,
        },
        body: JSON.stringify({
          model: 'via-openai-chat',
          max_tokens: 32,
          stream,
          messages: [{ role: 'user', content: 'a private sentence for the log test' }],
        }),
      });
    const plain = await send('obs-log-plain', false);
    t.equal(plain.headers.get('x-request-id'), 'obs-log-plain', 'the request id comes back');
    await plain.text();
    const streamed = await send('obs-log-stream', true);
    await streamed.text();
    const generated = await send('', false);
    t.match(generated.headers.get('x-request-id'), /^[0-9a-f-]{36}$/, 'an id is made when the client sends none');
    await generated.text();

    type Line = Record<string, unknown>;
    const lines = (): Line[] =>
      gw
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line);
    const find = (id: string): Line | undefined => lines().find((l) => l.request_id === id);
    await waitFor(
      async () => find('obs-log-plain') !== undefined && find('obs-log-stream') !== undefined,
      () => 'log lines missing',
    );
    const shape = {
      family: 'messages',
      inbound_format: 'anthropic-messages',
      upstream_format: 'openai-chat',
      provider: 'openai-chat',
      mode: 'translate',
      model: 'via-openai-chat',
      upstream_model: 'openai-chat-model',
      key: 'test',
      status: 200,
      outcome: 'ok',
      duration_ms: Number,
      decode_ms: Number,
      encode_ms: Number,
      tokens_in: Number,
      tokens_out: Number,
    };
    t.match(find('obs-log-plain'), shape, 'a plain request');
    t.match(
      find('obs-log-stream'),
      { ...shape, ttfb_ms: Number, stream_chunks: Number },
      'a stream, with time to first byte and chunks',
    );
    t.equal(lines().filter((l) => l.request_id === 'obs-log-plain').length, 1, 'exactly one line for the request');

    const all = gw.output();
    for (const secret of [TEST_KEY, METRICS_TOKEN, 'sk-upstream-'])
      t.notOk(all.includes(secret), `no secret in the logs (${secret.slice(0, 12)}…)`);
    t.notOk(all.includes('a private sentence'), 'no message content without log.content');
    t.notOk(/observe \w+ through/.test(all), 'no prompt of the SDK traffic either');
  },
);
