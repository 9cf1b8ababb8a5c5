// `node bench/ledger-commit-micro.ts`: the sqlite ledger's own CPU and bytes per non-streamed
// request, in process (issue #28, session 10): `Ledger.commit` of a record as commitUsage builds
// it (src/app/record-usage.ts), LEDGER_COMMIT_PER_TURN (2) ending per turn of the event loop, so
// each turn journals its records (the write that makes them durable before the answer) and the
// batches of `batch_size` (500) go to the database as in the gateway; then `flush` for the rest.
// With BENCH_BEFORE, the older checkout runs in alternating rounds, each round in a child process
// of its own (module state, GC). CPU is the process's (all threads); bytes are from the sampling
// heap profiler with collected objects included (what alloc-per-request.ts counts), in a second pass.
// LEDGER_COMMIT_ROUNDS (6), LEDGER_COMMIT_REQUESTS (100,000), LEDGER_COMMIT_TOP (the N largest allocators, one child run:
// `LEDGER_COMMIT_CHILD=$PWD LEDGER_COMMIT_TOP=20 node bench/ledger-commit-micro.ts`).
import { median } from './stats.ts';
import { childRounds, ledgerModules } from './child-rounds.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeDir, repoRoot } from './processes.ts';

const requests = Number(process.env.LEDGER_COMMIT_REQUESTS ?? 100_000);
const perTurn = Number(process.env.LEDGER_COMMIT_PER_TURN ?? 2);

type Result = { cpuUs: number; bytes: number };

// What commitUsage builds for E → openai-chat (translate), a priced model, no budget.
function benchRecord(n: number) {
  const ts = Date.now();
  return {
    ts,
    day: new Date(ts).toISOString().slice(0, 10),
    request_id: `b0f8c5b2-6a47-4c2e-9b7e-${String(n).padStart(12, '0')}`,
    key: 'bench',
    workspace: 'bench',
    family: 'messages',
    model: 'bench-openai-chat',
    provider: 'openai',
    upstream_model: 'gpt-bench',
    format_in: 'anthropic-messages',
    format_out: 'openai-chat',
    mode: 'translate',
    input_tokens: 120,
    output_tokens: 40,
    reasoning_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    usage_source: 'reported' as const,
    characters: 0,
    audio_seconds: 0,
    tasks: 0,
    web_search_requests: 0,
    web_fetch_requests: 0,
    cost_nano: 960_000 + (n % 7),
    priced: true,
    outcome: 'ok',
    status: 200,
    route: '/v1/messages',
    latency_ms: 2.3,
    ttfb_ms: undefined,
    warnings: undefined,
    content_captured: undefined,
  };
}

/** Bytes allocated while `work` runs (sampling heap profiler); LEDGER_COMMIT_TOP=N prints the N largest allocators per request. */
async function sampledBytes(work: () => Promise<void>, allocRequests: number): Promise<number> {
  const ins = new Session();
  ins.connect();
  await ins.post('HeapProfiler.enable');
  await ins.post('HeapProfiler.startSampling', {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await work();
  const { profile } = await ins.post('HeapProfiler.stopSampling');
  let bytes = 0;
  type Node = {
    selfSize: number;
    children: Node[];
    callFrame: { functionName: string; url: string; lineNumber: number };
  };
  const by = new Map<string, number>();
  const walk = (n: Node): void => {
    bytes += n.selfSize;
    const f = `${n.callFrame.functionName} ${n.callFrame.url.replace(/^.*\/(src|bench)\//, '$1/')}:${n.callFrame.lineNumber}`;
    by.set(f, (by.get(f) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(profile.head as Node);
  // LEDGER_COMMIT_TOP=N: the N largest allocators, bytes per request, on stderr.
  const top = Number(process.env.LEDGER_COMMIT_TOP ?? 0);
  for (const [f, b] of [...by].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stderr.write(`${(b / allocRequests).toFixed(0).padStart(6)} B  ${f}\n`);
  return bytes;
}

async function child(src: string): Promise<Result> {
  const { Ledger, SqliteLedgerStore } = await ledgerModules(src);
  const dir = mkdtempSync(join(tmpdir(), 'ledger-commit-'));
  const store = new SqliteLedgerStore(join(dir, 'ledger.db'));
  const ledger = new Ledger(
    store,
    { flushIntervalMs: 1000, batchSize: 500, retentionDays: 90, storeWaitMs: 250 },
    () => undefined,
  );
  let n = 0;
  const record = () => benchRecord(n++);
  const run = async (count: number): Promise<void> => {
    let waits: Promise<void>[] = [];
    for (let i = 0; i < count; i += perTurn) {
      for (let j = 0; j < perTurn; j++) waits.push(ledger.commit(record()));
      await new Promise((r) => setImmediate(r));
      if (waits.length >= 256) {
        await Promise.all(waits);
        waits = [];
      }
    }
    await Promise.all(waits);
    await ledger.flush();
  };
  await run(requests / 4);
  const t0 = process.cpuUsage();
  await run(requests);
  const u = process.cpuUsage(t0);
  const allocRequests = requests / 4;
  const bytes = await sampledBytes(() => run(allocRequests), allocRequests);
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
  // The harness's own record object and promise are in both trees' figures alike.
  return { cpuUs: (u.user + u.system) / requests, bytes: bytes / allocRequests };
}

if (process.env.LEDGER_COMMIT_CHILD) {
  process.stdout.write(JSON.stringify(await child(process.env.LEDGER_COMMIT_CHILD)));
} else {
  const dirs = [repoRoot, ...(beforeDir ? [beforeDir] : [])];
  const rounds = Number(process.env.LEDGER_COMMIT_ROUNDS ?? 6);
  const results = childRounds<Result>(
    import.meta.filename,
    'LEDGER_COMMIT_CHILD',
    dirs,
    rounds,
    (round, d, v) => `round ${round} ${d}: ${v.cpuUs.toFixed(2)} µs CPU, ${(v.bytes / 1024).toFixed(2)} KB per request`,
  );
  for (const [d, vs] of results)
    process.stdout.write(
      `${d}: median ${median(vs.map((v) => v.cpuUs)).toFixed(2)} µs CPU, ${(median(vs.map((v) => v.bytes)) / 1024).toFixed(2)} KB per request (${requests} requests, ${perTurn} per turn)\n`,
    );
  if (dirs.length === 2) {
    const [a, b] = dirs.map((d) => results.get(d)!);
    process.stdout.write(`after ÷ before per round: ${a.map((v, i) => (v.cpuUs / b[i].cpuUs).toFixed(2)).join(' ')}\n`);
  }
}
