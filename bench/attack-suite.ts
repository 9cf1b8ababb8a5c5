// `node bench/attack-suite.ts`: the twelve findings of the hardening issue, one after another,
// against polygate started as `npm start` runs it (src/main.ts on config/gateway.yaml, plus a key
// with limits.tpm and a hostile upstream for findings 10 and 12). While each attack runs it
// scrapes /metrics every 250 ms for polygate_nodejs_eventloop_lag_max_seconds (prom-client's
// monitorEventLoopDelay histogram, reset at every scrape, so the largest value seen is the longest
// event-loop stall during the attack), polls /healthz every 250 ms and samples the RSS. Prints one
// table. Loopback only, bounded in count and time (a few minutes on 2 cores); measures, never
// asserts. Env: ATTACK_ONLY=1,2,6' (a subset; round two's HTTP findings are r2-2, r2-5a… from
// bench/attack-round-two.ts; its WebSocket findings r2-ws1, r2-ws3, r2-ws4 from bench/attack-ws.ts), ATTACK_TRICKLERS=5000, ATTACK_STREAMS=250, ATTACK_NODE_ARGS.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { startHostileUpstream } from '../test/hardening/hostile-upstream.ts';
import { deepSchema, nestedArrays, node, post, rssMb, startPolygate, trickler, type Gw } from './probe-gateway.ts';
import { startOtlpReceiver } from '../test/tracing/otlp-receiver.ts';
import { roundTwo, roundTwoConfig } from './attack-round-two.ts';
import { wsBadFrames, wsLaneFlood, wsSocketMemory } from './attack-ws.ts';

const root = resolve(import.meta.dirname, '..');
const only = process.env.ATTACK_ONLY ? new Set(process.env.ATTACK_ONLY.split(',')) : undefined;
const METERED = 'sk-attack-metered';
const DEMO = 'sk-polygate-demo';
const UPSTREAM_KEY = 'sk-upstream-secret-attack-0001';
const work = mkdtempSync(join(tmpdir(), 'polygate-attack-'));
const hostile = await startHostileUpstream();

/** config/gateway.yaml as shipped, plus the metered key, the hostile upstream and `limits`. */
function config(limits: Record<string, unknown> = {}, more?: (c: Record<string, any>) => void): string {
  const c = parse(readFileSync(join(root, 'config/gateway.yaml'), 'utf8')) as Record<string, any>;
  c.log = { ...c.log, level: 'warn' };
  c.limits = { ...c.limits, ...limits };
  c.keys.push({ id: 'metered', secret: METERED, workspace: 'metered', models: ['*'], limits: { tpm: 1_000_000_000 } });
  c.providers.hostile = { type: 'openai', base_url: hostile.url, api_key: UPSTREAM_KEY, api: 'chat_completions' };
  for (const m of ['leak', 'leak-500', 'reject', 'hop']) c.models[m] = { routes: [{ provider: 'hostile', model: m }] };
  more?.(c);
  const file = join(work, `gateway-${Object.keys(limits).length}${more ? '-r2' : ''}.yaml`);
  writeFileSync(file, stringify(c));
  return file;
}
// ATTACK_NODE_ARGS: flags for the gateway's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, `--trace-gc`).
const nodeArgs = process.env.ATTACK_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const start = (limits?: Record<string, unknown>, more?: (c: Record<string, any>) => void): Promise<Gw> =>
  startPolygate(root, config(limits, more), { POLYGATE_DB: join(work, `polygate-${Date.now()}.db`) }, nodeArgs);

// The machine's own noise: an idle node process measuring its event-loop delay the same way. On a
// shared 2-core machine the scheduler alone can stall a process for 100 ms; a gateway figure near
// this one is the machine, not polygate.
const idle = spawn(
  node,
  [
    '-e',
    `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable();
    process.on('message', () => { process.send(h.max / 1e6); h.reset(); });`,
  ],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
const idleMax = (): Promise<number> =>
  new Promise((ok) => {
    idle.once('message', (m) => ok(Number(m)));
    idle.send!('max');
  });

type Row = {
  finding: string;
  requests: number;
  loopMs: number;
  loopAtS: number;
  idleMs: number;
  healthOk: number;
  healthAsked: number;
  healthMaxMs: number;
  rssMb: number;
  crashed: boolean;
  note: string;
};
const rows: Row[] = [];

const lagMax = async (gw: Gw): Promise<number> => {
  const text = await (await fetch(`${gw.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return Number(/^polygate_nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1] ?? NaN) * 1000;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs one attack under watch. `run` answers how many requests it sent and what they got. */
async function attack(gw: Gw, finding: string, run: () => Promise<{ requests: number; note: string }>): Promise<void> {
  if (only && !only.has(finding.split(' ')[0])) return;
  await lagMax(gw); // resets the histogram: what follows is this attack's
  await idleMax();
  const row: Row = {
    finding,
    requests: 0,
    loopMs: 0,
    loopAtS: 0,
    idleMs: 0,
    healthOk: 0,
    healthAsked: 0,
    healthMaxMs: 0,
    rssMb: rssMb(gw.pid),
    crashed: false,
    note: '',
  };
  let running = true;
  const t0 = performance.now();
  const every = (fn: () => Promise<void>) =>
    (async () => {
      while (running) {
        const t0 = performance.now();
        await fn().catch(() => undefined);
        await sleep(Math.max(0, 250 - (performance.now() - t0)));
      }
    })();
  const loops = [
    every(async () => {
      const ms = await lagMax(gw);
      if (ms > row.loopMs) Object.assign(row, { loopMs: ms, loopAtS: (performance.now() - t0) / 1000 });
    }),
    every(async () => void (row.idleMs = Math.max(row.idleMs, await idleMax()))),
    every(async () => {
      row.healthAsked++;
      const t0 = performance.now();
      const r = await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
      await r.arrayBuffer();
      if (r.ok) row.healthOk++;
      row.healthMaxMs = Math.max(row.healthMaxMs, performance.now() - t0);
    }),
    every(async () => void (row.rssMb = Math.max(row.rssMb, rssMb(gw.pid) || 0))),
  ];
  try {
    Object.assign(row, await run());
  } catch (e) {
    row.note = `attack failed: ${(e as Error).message}`;
  }
  const took = performance.now() - t0;
  running = false;
  await Promise.all(loops);
  row.loopMs = Math.max(row.loopMs, await lagMax(gw).catch(() => NaN));
  row.crashed = gw.exited();
  row.note += `; ${(took / 1000).toFixed(1)} s`;
  rows.push(row);
  console.error(`${finding}: ${JSON.stringify(row)}`);
}

const tally = (statuses: number[]): string =>
  Object.entries(statuses.reduce<Record<number, number>>((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {}))
    .map(([s, n]) => `${n}x${s}`)
    .join(' ');

/** `n` calls of `fn`, `width` at a time. */
async function pool<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** A raw request, so that headers fetch refuses to send (Connection, Proxy-*) go out. */
function raw(
  gw: Gw,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer = '',
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((ok, fail) => {
    const req = httpRequest(`${gw.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Finding 6: a chain of 0.9 MB previous_response_id requests, until one is refused. */
async function chain(gw: Gw, steps: number): Promise<{ requests: number; note: string }> {
  const statuses: number[] = [];
  let previous: string | undefined;
  for (let i = 0; i < steps; i++) {
    const r = await post(
      gw.url,
      '/v1/responses',
      JSON.stringify({
        model: 'echo',
        input: `${i} ${'y'.repeat(900_000)}`,
        ...(previous ? { previous_response_id: previous } : {}),
      }),
      DEMO,
    );
    statuses.push(r.status);
    if (r.status !== 200) break;
    previous = (JSON.parse(r.text) as { id: string }).id;
  }
  return { requests: statuses.length, note: tally(statuses) };
}

const gw = await start();
const idleRss = rssMb(gw.pid);
try {
  await attack(gw, '1 nested minItems json_schema to echo', async () => {
    const statuses = [];
    for (const levels of [2, 3]) {
      const body = JSON.stringify({
        model: 'echo',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 's', schema: nestedArrays(levels) } },
      });
      statuses.push((await post(gw.url, '/v1/chat/completions', body, METERED)).status);
    }
    return { requests: 2, note: tally(statuses) };
  });

  await attack(gw, '2 1 MB Messages bodies, tpm key', async () => {
    const prose = 'The gateway routes each request and encodes the answer back. ';
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const words: string[] = [];
    for (let n = 0; n < 1_000_000;) {
      const w = Array.from({ length: 1 + Math.floor(rand() * 12) }, () =>
        String.fromCharCode(97 + Math.floor(rand() * 26)),
      ).join('');
      words.push(w);
      n += w.length + 1;
    }
    const texts = [
      'a'.repeat(1_000_000),
      '中文字'.repeat(111_111),
      prose.repeat(Math.round(1_000_000 / prose.length)),
      words.join(' '),
    ];
    const statuses = [];
    for (const text of texts)
      statuses.push(
        (
          await post(
            gw.url,
            '/v1/messages',
            JSON.stringify({ model: 'echo', max_tokens: 64, messages: [{ role: 'user', content: text }] }),
            METERED,
          )
        ).status,
      );
    return { requests: texts.length, note: `single word, CJK, prose, random words: ${tally(statuses)}` };
  });

  await attack(gw, '3 trickling connections', async () => {
    const n = Number(process.env.ATTACK_TRICKLERS ?? 5000);
    const unauth = [];
    for (let i = 0; i < n; i += 500) {
      for (let j = i; j < Math.min(n, i + 500); j++) unauth.push(trickler(gw.port, undefined, 1000));
      await sleep(50);
    }
    const auth = Array.from({ length: 200 }, () => trickler(gw.port, METERED, 1000));
    const all = [...unauth, ...auth];
    const t0 = Date.now();
    while (!all.every((c) => c.closed) && Date.now() - t0 < 80_000) await sleep(250);
    for (const c of all) c.socket.destroy();
    const got = (cs: typeof all): string => tally(cs.map((c) => c.status ?? 0));
    return { requests: all.length, note: `unauthenticated ${got(unauth)}; authenticated ${got(auth)} (0: none)` };
  });

  await attack(gw, '4 10,000-deep JSON', async () => {
    const messages = `{"model":"echo","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"d","input_schema":${deepSchema(10_000)}}],"tool_choice":{"type":"tool","name":"d"}}`;
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(gw.url, '/v1/messages', messages, METERED)).status);
    for (const path of [
      '/v1/chat/completions',
      '/v1/responses',
      '/v1beta/models/echo:generateContent',
      '/tune/submit/music',
    ])
      statuses.push(
        (await post(gw.url, path, `{"model":"echo","x":${deep}}`, DEMO, { 'x-goog-api-key': DEMO })).status,
      );
    return { requests: statuses.length, note: tally(statuses) };
  });

  await attack(gw, '5 stalled 1 MB echo streams', async () => {
    const n = Number(process.env.ATTACK_STREAMS ?? 250);
    const body = JSON.stringify({
      model: 'echo',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'word '.repeat(200_000) }],
    });
    const reqs: ClientRequest[] = [];
    const statuses = await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<number>((ok) => {
            const req = httpRequest(
              `${gw.url}/v1/messages`,
              {
                method: 'POST',
                agent: false,
                headers: { 'content-type': 'application/json', 'x-api-key': DEMO, 'anthropic-version': '2023-06-01' },
              },
              (res) => {
                res.pause(); // never read: the gateway must stop producing
                ok(res.statusCode ?? 0);
              },
            );
            req.on('error', () => ok(0));
            req.end(body);
            reqs.push(req);
          }),
      ),
    );
    await sleep(5000);
    const held = rssMb(gw.pid);
    for (const r of reqs) r.destroy();
    await sleep(1000);
    return { requests: n, note: `${tally(statuses)}; RSS with all open ${held.toFixed(0)} MB` };
  });

  await attack(gw, '6 0.9 MB previous_response_id chain of 40', () => chain(gw, 40));

  await attack(gw, '7 malformed escapes in paths', async () => {
    const paths = [
      '/v1beta/models/%E0%A4%A:generateContent',
      '/v1beta/models/ech%256f:generateContent',
      '/v1/responses/%E0%A4%A',
      '/tune/fetch/%E0%A4%A',
      '/v1beta/models/%:streamGenerateContent',
    ];
    const statuses = await pool(1000, 16, (i) =>
      raw(
        gw,
        i % 5 < 2 ? 'POST' : 'GET',
        paths[i % 5],
        { authorization: `Bearer ${DEMO}`, 'x-goog-api-key': DEMO, 'content-type': 'application/json' },
        i % 5 < 2 ? '{"contents":[{"parts":[{"text":"hi"}]}]}' : '',
      ).then((r) => r.status),
    );
    return { requests: statuses.length, note: tally(statuses) };
  });

  await attack(gw, '8 odd-case paths', async () => {
    const paths = [
      '/V1/CHAT/COMPLETIONS',
      '/v1/Messages/',
      '/V1BETA/MODELS/echo:generateContent',
      '/v1/RESPONSES',
      '/Tune/Submit/Music',
      '/v1//messages',
      '/v1/messages/.',
      '/v1/messages%2f',
    ];
    const body = JSON.stringify({
      model: 'echo',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'hi' }],
      contents: [{ parts: [{ text: 'hi' }] }],
      input: 'hi',
      prompt: 'p',
      title: 't',
      tags: 'x',
    });
    const statuses = await pool(1000, 16, (i) =>
      post(gw.url, paths[i % paths.length], body, DEMO, { 'x-goog-api-key': DEMO }).then((r) => r.status),
    );
    return { requests: statuses.length, note: tally(statuses) };
  });

  await attack(gw, '9 unknown field names', async () => {
    const size = async (): Promise<number> => (await (await fetch(`${gw.url}/metrics`)).text()).length;
    const before = await size();
    const statuses = await pool(10_000, 32, (i) =>
      post(
        gw.url,
        '/v1/messages',
        JSON.stringify({
          model: 'echo',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'hi' }],
          [`x_${i}_${Math.random().toString(36).slice(2)}`]: 1,
          [`bad\nX-Injected-${i}: 1`]: 2,
        }),
        DEMO,
      ).then((r) => r.status),
    );
    return { requests: statuses.length, note: `${tally(statuses)}; /metrics ${before} -> ${await size()} bytes` };
  });

  await attack(gw, '10 hostile upstream quoting the key', async () => {
    const leaked: string[] = [];
    const statuses = await pool(600, 16, async (i) => {
      const model = ['leak', 'leak-500', 'reject'][i % 3];
      const [path, body] =
        i % 2
          ? ['/v1/chat/completions', JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] })]
          : ['/v1/messages', JSON.stringify({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })];
      const r = await post(gw.url, path, body, DEMO);
      if (
        r.text.includes(UPSTREAM_KEY.slice(8)) ||
        [...r.headers.values()].some((v) => v.includes(UPSTREAM_KEY.slice(8)))
      )
        leaked.push(model);
      return r.status;
    });
    return { requests: statuses.length, note: `${tally(statuses)}; key in answer: ${leaked.length}` };
  });

  await attack(gw, '11 NUL in music title', async () => {
    const statuses = await pool(200, 8, (i) =>
      post(
        gw.url,
        '/tune/submit/music',
        JSON.stringify({ prompt: 'la la', title: `bad\u0000title ${i}`, tags: 'pop' }),
        DEMO,
      ).then((r) => r.status),
    );
    return { requests: statuses.length, note: tally(statuses) };
  });

  await attack(gw, '12 relay headers and SSRF literals', async () => {
    const hops: string[] = [];
    const relay = await pool(200, 8, async () => {
      const r = await raw(
        gw,
        'POST',
        '/v1/chat/completions',
        {
          'content-type': 'application/json',
          authorization: `Bearer ${DEMO}`,
          connection: 'keep-alive, x-client-hop',
          'x-client-hop': 'client-only',
          'proxy-authorization': 'Basic c2VjcmV0',
          forwarded: 'for=10.1.2.3',
          'x-forwarded-for': '10.1.2.3',
        },
        JSON.stringify({ model: 'hop', messages: [{ role: 'user', content: 'hi' }] }),
      );
      for (const h of ['x-hop-secret', 'proxy-authenticate', 'via', 'x-forwarded-for'])
        if (r.headers[h] !== undefined) hops.push(`answer:${h}`);
      return r.status;
    });
    for (const seen of hostile.seen)
      for (const h of ['x-client-hop', 'proxy-authorization', 'forwarded', 'x-forwarded-for'])
        if (seen[h] !== undefined) hops.push(`upstream:${h}`);
    const hooks = [
      'http://127.0.0.1:9/x',
      'http://localhost:9/x',
      'http://[::1]:9/x',
      'http://[::ffff:127.0.0.1]:9/x',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8/x',
      'http://0x7f000001/x',
      'http://2130706433/x',
      'http://[64:ff9b::7f00:1]/x',
      'http://[2002:7f00:1::]/x',
    ];
    const ssrf = await pool(200, 8, (i) =>
      post(
        gw.url,
        '/tune/submit/music',
        JSON.stringify({ prompt: 'la', title: 'T', tags: 'pop', notify_hook: hooks[i % hooks.length] }),
        DEMO,
      ).then((r) => r.status),
    );
    return {
      requests: relay.length + ssrf.length,
      note: `relay ${tally(relay)}, hop headers crossed: ${hops.length}; notify_hook literals ${tally(ssrf)}`,
    };
  });
  // Round two (issue #30): the WebSocket findings 1, 3 and 4 (bench/attack-ws.ts, which also runs
  // alone), `r2-ws1` … on the shipped config's gateway (run inside its try, before it stops); a pause after each lets its sockets close.
  const wsWanted = (id: string): boolean => !only || only.has(id);
  for (const [id, finding, run] of [
    ['r2-ws1', 'r2-ws1 one malformed frame of each of 8 kinds', wsBadFrames],
    ['r2-ws3', 'r2-ws3 400 × 200 KB messages on one stream_id lane', wsLaneFlood],
    ['r2-ws4', 'r2-ws4 8 sockets × 30 × 1 MB store:false turns', wsSocketMemory],
  ] as const) {
    if (!wsWanted(id)) continue;
    await attack(gw, finding, () => run(gw.url, DEMO));
    await sleep(6_000);
  }
} finally {
  gw.stop(nodeArgs.length ? 'SIGTERM' : 'SIGKILL');
}

// Finding 6 again with the chain cap raised, to measure the event loop under the whole chain.
const raised = only && !only.has("6'") ? undefined : await start({ max_conversation_bytes: 1_000_000_000 });
if (raised) {
  try {
    await attack(raised, "6' same chain, max_conversation_bytes raised to 1 GB", () => chain(raised, 40));
  } finally {
    raised.stop(nodeArgs.length ? 'SIGTERM' : 'SIGKILL');
  }
}
// Round two (issue #30): the HTTP findings, `r2-N`, on a gateway of their own (bench/attack-round-two.ts).
const roundTwoWanted = !only || [...only].some((f) => f.startsWith('r2-'));
if (roundTwoWanted) {
  const receiver = await startOtlpReceiver();
  const setup = { upstreamKey: UPSTREAM_KEY, adminToken: 'attack-admin-token-0123456789', receiver };
  const second = await start({}, (c) => roundTwoConfig(c, setup));
  try {
    await roundTwo({ attack, pool, tally, raw, sleep }, second, { ...setup, key: DEMO, hostile });
  } finally {
    second.stop(nodeArgs.length ? 'SIGTERM' : 'SIGKILL');
    await receiver.close();
  }
}

await hostile.close();
idle.kill();

console.log(`\npolygate ${root} on config/gateway.yaml + a tpm key; idle RSS ${idleRss.toFixed(0)} MB\n`);
console.log(
  '| finding | requests | max event-loop delay (ms) (scraped at s) | idle process, same time (ms) | /healthz answered/asked | /healthz max (ms) | peak RSS (MB) | crash | answers |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.finding} | ${r.requests} | ${r.loopMs.toFixed(0)} (${r.loopAtS.toFixed(1)}) | ${r.idleMs.toFixed(0)} | ${r.healthOk}/${r.healthAsked} | ${r.healthMaxMs.toFixed(0)} | ${r.rssMb.toFixed(0)} | ${r.crashed ? 'yes' : 'no'} | ${r.note} |`,
  );
