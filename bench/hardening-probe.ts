// `node bench/hardening-probe.ts`: re-runs the bounded-work repros of the hardening issue against
// a started gateway (echo, a key with limits.tpm, sqlite storage) and reports, per repro, the
// answer, its duration, the worst /healthz latency seen meanwhile (polled every 10 ms from this
// process: the gateway's event loop stall as a client sees it) and the gateway's RSS. Measures,
// never asserts. POLYGATE_DIR=<checkout> measures another checkout (e.g. the unfixed code).
//
// Repro 6 uses the key without tpm, so it measures storage alone, not the estimate (repro 2).
// Env: PROBE_ONLY=1,2,4,5,6 (a subset), PROBE_LEVELS (repro 1, default 2,3), PROBE_BYTES (repro 2's body
// size, default 1000000), PROBE_STREAMS (repro 5, default 250), PROBE_CHAIN (repro 6, default 40).
// The unfixed code needs small values: 3 levels ran out of heap after minutes, 1 MB took 639 s.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { deepSchema, nestedArrays, post as postTo, rssMb, startPolygate, type Gw } from './probe-gateway.ts';

const dir = resolve(process.env.POLYGATE_DIR ?? join(import.meta.dirname, '..'));
const only = new Set((process.env.PROBE_ONLY ?? '1,2,4,5,6').split(','));
const KEY = 'sk-probe-metered';
const OTHER = 'sk-probe-other';
const work = mkdtempSync(join(tmpdir(), 'polygate-probe-'));
const db = join(work, 'polygate.db');

function config(extraLimits: Record<string, unknown> = {}): string {
  const file = join(work, `gateway-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    stringify({
      listen: { host: '127.0.0.1', port: 0 },
      storage: { driver: 'sqlite', path: db },
      log: { level: 'warn' },
      limits: extraLimits,
      keys: [
        { id: 'metered', secret: KEY, workspace: 'w1', models: ['*'], limits: { tpm: 1_000_000_000 } },
        { id: 'other', secret: OTHER, workspace: 'w2', models: ['*'] },
      ],
      providers: {
        echo: { type: 'echo' },
        dead: { type: 'openai', base_url: 'http://127.0.0.1:9', api_key: 'x', api: 'chat_completions' },
      },
      models: {
        echo: { routes: [{ provider: 'echo', model: 'echo-1' }] },
        dead: { routes: [{ provider: 'dead', model: 'm' }] },
      },
    }),
  );
  return file;
}

const start = (file: string): Promise<Gw> => startPolygate(dir, file, {}, ['--max-old-space-size=4096']);

/** Polls /healthz and RSS while `work` runs: the worst latency and the peak RSS. */
async function watched<T>(gw: Gw, label: string, work: () => Promise<T>): Promise<T> {
  let worst = 0;
  let peak = 0;
  let running = true;
  const poll = (async () => {
    while (running) {
      const t0 = performance.now();
      await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(300_000) }).catch(() => undefined);
      worst = Math.max(worst, performance.now() - t0);
      peak = Math.max(peak, rssMb(gw.pid));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const t0 = performance.now();
  const r = await work();
  const took = performance.now() - t0;
  running = false;
  await poll;
  console.log(
    `${label.padEnd(58)} took ${took.toFixed(0).padStart(7)} ms; worst /healthz ${worst.toFixed(0).padStart(6)} ms; peak RSS ${peak.toFixed(0)} MB`,
  );
  return r;
}

const post = (gw: Gw, path: string, body: string, key = KEY): Promise<{ status: number; text: string }> =>
  postTo(gw.url, path, body, key);

const gw = await start(config());
console.log(`gateway ${dir} (pid ${gw.pid}); idle RSS ${rssMb(gw.pid).toFixed(0)} MB`);
try {
  if (only.has('1')) {
    for (const levels of (process.env.PROBE_LEVELS ?? '2,3').split(',').map(Number)) {
      const body = JSON.stringify({
        model: 'echo',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 's', schema: nestedArrays(levels) } },
      });
      const r = await watched(gw, `1. json_schema ${levels}x minItems 1000 (${body.length} B)`, () =>
        post(gw, '/v1/chat/completions', body),
      );
      console.log(`   -> ${r.status}, ${r.text.length} B: ${r.text.slice(0, 140)}`);
    }
  }
  if (only.has('2')) {
    const bytes = Number(process.env.PROBE_BYTES ?? 1_000_000);
    const prose = 'The gateway routes each request and encodes the answer back. ';
    for (const [name, text] of [
      ['single word', 'a'.repeat(bytes)],
      ['CJK', '中文字'.repeat(Math.round(bytes / 9))],
      ['prose', prose.repeat(Math.round(bytes / prose.length))],
    ] as const) {
      const body = JSON.stringify({ model: 'echo', max_tokens: 64, messages: [{ role: 'user', content: text }] });
      const r = await watched(
        gw,
        `2. Messages, tpm key, ${name} (${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB)`,
        () => post(gw, '/v1/messages', body),
      );
      console.log(`   -> ${r.status}`);
    }
  }
  if (only.has('4')) {
    const body = (model: string): string =>
      `{"model":"${model}","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"d","input_schema":${deepSchema(10_000)}}],"tool_choice":{"type":"tool","name":"d"}}`;
    const codes: number[] = [];
    await watched(gw, '4. five 10,000-deep tool schemas to echo', async () => {
      for (let i = 0; i < 5; i++) codes.push((await post(gw, '/v1/messages', body('echo'))).status);
    });
    const other = await post(
      gw,
      '/v1/messages',
      '{"model":"echo","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}',
      OTHER,
    );
    const dead = await post(gw, '/v1/messages', body('dead'));
    console.log(
      `   -> deep: ${codes.join(',')}; other tenant afterwards: ${other.status}; deep to a real upstream route: ${dead.status} ${dead.text.slice(0, 100)}`,
    );
  }
  if (only.has('5')) {
    const n = Number(process.env.PROBE_STREAMS ?? 250);
    const body = JSON.stringify({
      model: 'echo',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'word '.repeat(200_000) }],
    });
    const reqs: ClientRequest[] = [];
    await watched(gw, `5. ${n} x 1 MB echo streams, clients stop reading`, async () => {
      const url = new URL(`${gw.url}/v1/messages`);
      await Promise.all(
        Array.from(
          { length: n },
          () =>
            new Promise<void>((ok) => {
              const req = httpRequest(
                {
                  host: url.hostname,
                  port: url.port,
                  path: url.pathname,
                  method: 'POST',
                  agent: false,
                  headers: {
                    'content-type': 'application/json',
                    authorization: `Bearer ${OTHER}`,
                    'anthropic-version': '2023-06-01',
                  },
                },
                (res) => {
                  res.pause(); // never read: the gateway must stop producing
                  ok();
                },
              );
              req.on('error', () => ok());
              req.end(body);
              reqs.push(req);
            }),
        ),
      );
      await new Promise((r) => setTimeout(r, 5000));
    });
    console.log(`   -> RSS with ${n} stalled streams open: ${rssMb(gw.pid).toFixed(0)} MB`);
    for (const r of reqs) r.destroy();
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (only.has('6')) {
    const steps = Number(process.env.PROBE_CHAIN ?? 40);
    const size = (): number =>
      ['', '-wal'].reduce(
        (n, s) =>
          n +
          (() => {
            try {
              return statSync(db + s).size;
            } catch {
              return 0;
            }
          })(),
        0,
      );
    let previous: string | undefined;
    const before = size();
    const statuses: number[] = [];
    let lastMs = 0;
    await watched(gw, `6. ${steps} chained previous_response_id requests of 0.9 MB`, async () => {
      for (let i = 0; i < steps; i++) {
        const t0 = performance.now();
        const r = await post(
          gw,
          '/v1/responses',
          JSON.stringify({
            model: 'echo',
            input: `${i} ${'y'.repeat(900_000)}`,
            ...(previous ? { previous_response_id: previous } : {}),
          }),
          OTHER,
        );
        lastMs = performance.now() - t0;
        statuses.push(r.status);
        if (r.status === 200) previous = (JSON.parse(r.text) as { id: string }).id;
        else break;
      }
    });
    console.log(
      `   -> statuses ${statuses.join(',')}; last request ${lastMs.toFixed(0)} ms; DB+WAL grew ${((size() - before) / 1e6).toFixed(1)} MB`,
    );
  }
} finally {
  console.log(`final RSS ${rssMb(gw.pid).toFixed(0)} MB (NaN: the gateway crashed)`);
  gw.stop();
}

// Repro 6 without the cap: what delta storage alone does for the DB and the event loop.
if (only.has('6') && !process.env.POLYGATE_DIR) {
  const g2 = await start(config({ max_conversation_bytes: 1_000_000_000 }));
  try {
    const size = (): number =>
      ['', '-wal'].reduce(
        (n, s) =>
          n +
          (() => {
            try {
              return statSync(db + s).size;
            } catch {
              return 0;
            }
          })(),
        0,
      );
    const before = size();
    let previous: string | undefined;
    let lastMs = 0;
    const steps = Number(process.env.PROBE_CHAIN ?? 40);
    await watched(g2, `6'. same chain, cap raised to 1 GB (turn storage only)`, async () => {
      for (let i = 0; i < steps; i++) {
        const t0 = performance.now();
        const r = await post(
          g2,
          '/v1/responses',
          JSON.stringify({
            model: 'echo',
            input: `${i} ${'y'.repeat(900_000)}`,
            ...(previous ? { previous_response_id: previous } : {}),
          }),
          OTHER,
        );
        lastMs = performance.now() - t0;
        previous = (JSON.parse(r.text) as { id: string }).id;
      }
    });
    console.log(`   -> last request ${lastMs.toFixed(0)} ms; DB+WAL grew ${((size() - before) / 1e6).toFixed(1)} MB`);
  } finally {
    g2.stop();
  }
}
