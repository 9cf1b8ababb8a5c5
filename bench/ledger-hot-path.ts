// `node bench/ledger-hot-path.ts [OLD_CHECKOUT]`: the ledger's whole per-request work in process, CPU
// per request and GC: the budget check (src/services/access/budgets.ts), the record (src/app/record-usage.ts),
// the ledger's queue and totals (src/services/usage/ledger.ts) and the sqlite batch writes, 32 requests
// ending per turn of the event loop as at 32 connections, LEDGER_HOT_RATE (40,000) a second. With an older checkout's directory, the two
// run interleaved in this process's rounds (each in its own child process), so a busy moment of the
// shared machine hits both alike. `npm run bench:ledger` cannot resolve a few µs (bench/RESULTS.md).
// LEDGER_HOT_NO_BUDGET=1: the key has no budget; LEDGER_HOT_STORE=null: no sqlite writes.
import { median } from './stats.ts';
import { childRounds, ledgerModules } from './child-rounds.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';

const here = resolve(import.meta.dirname, '..');
const requests = Number(process.env.LEDGER_HOT_REQUESTS ?? 200_000);
const perTurn = 32;
/**
 * Requests ending per second: above what one gateway core serves (~10,000), below what the ledger
 * writes. Unpaced, this loop ends ~200,000 a second, more than any gateway does: a store that cannot
 * keep up lets the queue pass its cap, records are dropped (counted), and the CPU per request would
 * leave their writes out (seen with a ledger thread, 2026-11-26, bench/RESULTS.md).
 */
const rate = Number(process.env.LEDGER_HOT_RATE ?? 40_000);

if (process.env.LEDGER_HOT_CHILD) {
  const src = process.env.LEDGER_HOT_CHILD;
  const { Ledger, SqliteLedgerStore } = await ledgerModules(src);
  const { recordUsage } = (await import(
    join(src, 'src/app/record-usage.ts')
  )) as typeof import('../src/app/record-usage.ts');
  const { enforceBudget } = (await import(
    join(src, 'src/services/access/budgets.ts')
  )) as typeof import('../src/services/access/budgets.ts');
  const dir = mkdtempSync(join(tmpdir(), 'ledger-hot-'));
  // LEDGER_HOT_STORE=null: a store that keeps nothing, for the ledger's own work without the writes.
  const nullStore = {
    local: true,
    maxAppend: Number.POSITIVE_INFINITY,
    append: async () => {},
    rows: async () => [],
    prune: async () => {},
    close: async () => {},
    // Every period's window (issue #25); a tree before it reads only day and month.
    totals: async () => ({
      hour: { costNano: 0, tokens: 0 },
      day: { costNano: 0, tokens: 0 },
      week: { costNano: 0, tokens: 0 },
      '30d': { costNano: 0, tokens: 0 },
      month: { costNano: 0, tokens: 0 },
    }),
    claimOnce: async () => true,
  };
  const store = process.env.LEDGER_HOT_STORE === 'null' ? nullStore : new SqliteLedgerStore(join(dir, 'ledger.db'));
  const ledger = new Ledger(store, { flushIntervalMs: 1000, batchSize: 500, retentionDays: 90 }, () => undefined);
  // What the gateway's request state holds for these calls, as the operator config of bench/ledger-bench.ts has it.
  const config = {
    usage: {
      ledger: true,
      prices: { models: { sonnet: { input: 3, output: 15 } }, providers: {} },
      // Both forms: a tree before issue #25 reads usd_per_day, one after it the limits.
      budgets: process.env.LEDGER_HOT_NO_BUDGET
        ? {}
        : { bench: { usd_per_day: 1e9, limits: [{ period: 'day', usd: 1e9 }] } },
      workspace_budgets: {},
      provider_budgets: {},
    },
  };
  const runtime = { config, router: { resolve: (m: string) => (m === 'sonnet' ? { entry: 'sonnet' } : undefined) } };
  const services = { ledger: { of: () => ledger }, log: { warn() {} } };
  const key = { id: 'bench', workspace: 'default' };
  const labels = {
    family: 'messages',
    inbound_format: 'anthropic-messages',
    upstream_format: 'openai-chat',
    provider: 'openai',
    mode: 'translate',
    outcome: 'ok',
  };
  let gcMs = 0;
  let gcs = 0;
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      gcMs += e.duration;
      gcs++;
    }
  }).observe({ entryTypes: ['gc'] });
  let n = 0;
  const one = async (): Promise<void> => {
    const state = {
      runtime,
      services,
      key,
      model: 'sonnet',
      requestId: `req-${n++}`,
      usage: { inputTokens: 12, outputTokens: 40 },
      path: { provider: 'openai', upstreamModel: 'gpt-4.1' },
    };
    await enforceBudget({ method: 'POST', path: '/v1/messages', state } as never);
    recordUsage(state as never, labels, 200);
  };
  const run = async (count: number): Promise<void> => {
    const started = performance.now();
    for (let i = 0; i < count; i += perTurn) {
      for (let j = 0; j < perTurn; j++) void one();
      const ahead = started + ((i + perTurn) / rate) * 1000 - performance.now();
      await new Promise((r) => (ahead > 1 ? setTimeout(r, ahead) : setImmediate(r)));
    }
    await new Promise((r) => setImmediate(r));
  };
  await run(requests / 4);
  await ledger.flush();
  gcMs = 0;
  gcs = 0;
  const t0 = process.cpuUsage();
  const m0 = process.threadCpuUsage();
  await run(requests);
  await ledger.flush();
  const u = process.cpuUsage(t0);
  const m = process.threadCpuUsage(m0);
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
  const { ledgerRecordsTotal } = (await import(
    join(src, 'src/infra/metrics/registry.ts')
  )) as typeof import('../src/infra/metrics/registry.ts');
  const dropped = (await ledgerRecordsTotal.get()).values.find((v) => v.labels.outcome === 'dropped')?.value ?? 0;
  process.stdout.write(
    JSON.stringify({
      cpuUs: (u.user + u.system) / requests,
      mainUs: (m.user + m.system) / requests,
      gcUs: (gcMs * 1000) / requests,
      gcs,
      dropped,
    }),
  );
} else {
  const dirs = [here, ...(process.argv[2] ? [resolve(process.argv[2])] : [])];
  const rounds = Number(process.env.LEDGER_HOT_ROUNDS ?? 5);
  const results = childRounds<{ cpuUs: number; mainUs: number; gcUs: number; dropped: number }>(
    import.meta.filename,
    'LEDGER_HOT_CHILD',
    dirs,
    rounds,
    (round, d, v) =>
      `round ${round} ${d}: ${v.cpuUs.toFixed(2)} µs CPU per request (all threads), ${v.mainUs.toFixed(2)} µs on the serving thread, GC ${v.gcUs.toFixed(2)} µs, ${v.dropped} records dropped`,
  );
  for (const [d, vs] of results) {
    process.stdout.write(
      `${d}: median ${median(vs.map((v) => v.cpuUs)).toFixed(2)} µs CPU per request (all threads), ${median(vs.map((v) => v.mainUs)).toFixed(2)} µs on the serving thread, GC ${median(vs.map((v) => v.gcUs)).toFixed(2)} µs (${requests} requests, ${perTurn} per turn, ${rate} a second)\n`,
    );
  }
}
