// `node bench/ledger-flush-stall.ts [OLD_CHECKOUT]`: how long the sqlite ledger's flush holds the event
// loop (every request of the process waits that long: a p99 source at low concurrency), and what
// an append costs per record by its size. In a child process per checkout (interleaved runs with an
// older checkout): 12 flushes of 2,000 queued records each (what one flush call takes at the default
// `batch_size` 500 when records piled up), while an immediate chain notes the longest gap between
// two of its callbacks and `monitorEventLoopDelay` (1 ms resolution) the loop's delay, and the main
// thread's CPU per record (process.threadCpuUsage). Then the store's append alone at 64 … 2,000
// records a transaction, CPU per record.
import { median } from './stats.ts';
import { childRounds, ledgerModules } from './child-rounds.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sampleRecord } from '../test/usage/sample-record.ts';

const here = resolve(import.meta.dirname, '..');
const queued = Number(process.env.LEDGER_STALL_RECORDS ?? 2_000);
const sizes = [64, 128, 256, 500, 2_000];

type Result = {
  gapMs: number;
  gapMaxMs: number;
  eldMaxMs: number;
  eldP99Ms: number;
  flushMs: number;
  flushMainUsPerRecord: number;
  perRecordUs: Record<number, number>;
};

if (process.env.LEDGER_STALL_CHILD) {
  const src = process.env.LEDGER_STALL_CHILD;
  const { Ledger, SqliteLedgerStore } = await ledgerModules(src);
  // This checkout's sample record for every checkout measured: a store keeps the fields it knows.
  const record = (i: number) => sampleRecord(i, { key: `key-${i % 4}` });
  const dir = mkdtempSync(join(tmpdir(), 'ledger-stall-'));
  const store = new SqliteLedgerStore(join(dir, 'ledger.db'));
  // A file that already holds some records, as a running gateway's does.
  for (let i = 0; i < 50; i++) await store.append(Array.from({ length: 500 }, (_, j) => record(i * 500 + j)));
  const ledger = new Ledger(
    store,
    { flushIntervalMs: 3_600_000, batchSize: 10_000, retentionDays: 90 },
    () => undefined,
  );
  // batchSize 10,000 so that adding does not start a flush; the flush below takes up to 4 × that.
  // Per flush: the longest wall-clock gap between two callbacks of an immediate chain (the thread's
  // CPU clock would be better, but it ticks in 4 ms steps on the bench machine). One event-loop
  // delay histogram over all flushes after the first two (warm-up), with 20 ms between flushes.
  const gaps: number[] = [];
  const flushes: number[] = [];
  let mainCpuUs = 0;
  const eld = monitorEventLoopDelay({ resolution: 1 });
  for (let round = 0; round < 12; round++) {
    if (round === 2) eld.enable();
    for (let i = 0; i < queued; i++) ledger.add(record(i));
    let gap = 0;
    let last = performance.now();
    let done = false;
    const tick = (): void => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const t0 = performance.now();
    await ledger.flush();
    const took = performance.now() - t0;
    done = true;
    await new Promise((r) => setTimeout(r, 20));
    if (round < 2) continue;
    gaps.push(gap);
    flushes.push(took);
  }
  eld.disable();
  // The main thread's CPU per record flushed, without the immediate chain (it runs between the
  // flush's appends, and would count as the flush's).
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < queued; i++) ledger.add(record(i));
    const c0 = process.threadCpuUsage();
    await ledger.flush();
    const c = process.threadCpuUsage(c0);
    mainCpuUs += c.user + c.system;
  }
  const gapMs = median(gaps);
  const gapMaxMs = Math.max(...gaps);
  const eldMaxMs = eld.max / 1e6;
  const eldP99Ms = eld.percentile(99) / 1e6;
  const flushMs = median(flushes);
  const perRecordUs: Record<number, number> = {};
  for (const size of sizes) {
    const batches = Math.max(4, Math.round(20_000 / size));
    const bs = Array.from({ length: batches }, (_, b) => Array.from({ length: size }, (_, j) => record(b * size + j)));
    const t0 = process.cpuUsage();
    for (const b of bs) await store.append(b);
    const u = process.cpuUsage(t0);
    perRecordUs[size] = (u.user + u.system) / (batches * size);
  }
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
  const flushMainUsPerRecord = mainCpuUs / (10 * queued);
  process.stdout.write(
    JSON.stringify({
      gapMs,
      gapMaxMs,
      eldMaxMs,
      eldP99Ms,
      flushMs,
      flushMainUsPerRecord,
      perRecordUs,
    } satisfies Result),
  );
} else {
  const dirs = [here, ...(process.argv[2] ? [resolve(process.argv[2])] : [])];
  const rounds = Number(process.env.LEDGER_STALL_ROUNDS ?? 3);
  const all = childRounds<Result>(import.meta.filename, 'LEDGER_STALL_CHILD', dirs, rounds, (round, d, v) => {
    const per = sizes.map((s) => `${s}: ${v.perRecordUs[s].toFixed(2)}`).join(', ');
    return `round ${round} ${d}: flush of ${queued} queued records: longest gap between immediates per flush median ${v.gapMs.toFixed(2)} ms, max ${v.gapMaxMs.toFixed(2)} ms; event-loop delay p99 ${v.eldP99Ms.toFixed(2)} ms, max ${v.eldMaxMs.toFixed(2)} ms; a flush took ${v.flushMs.toFixed(1)} ms, ${v.flushMainUsPerRecord.toFixed(2)} µs of the main thread's CPU per record; append µs CPU per record by records per transaction ${per}`;
  });
  for (const [d, vs] of all) {
    const per = sizes.map((s) => `${s}: ${median(vs.map((v) => v.perRecordUs[s])).toFixed(2)}`).join(', ');
    process.stdout.write(
      `${d}: medians of the runs: longest gap per flush ${median(vs.map((v) => v.gapMs)).toFixed(2)} ms (max ${median(vs.map((v) => v.gapMaxMs)).toFixed(2)}), event-loop delay p99 ${median(vs.map((v) => v.eldP99Ms)).toFixed(2)} ms, max ${median(vs.map((v) => v.eldMaxMs)).toFixed(2)} ms, flush ${median(vs.map((v) => v.flushMs)).toFixed(1)} ms, main thread ${median(vs.map((v) => v.flushMainUsPerRecord)).toFixed(2)} µs CPU per record; append µs per record by transaction size ${per}\n`,
    );
  }
}
