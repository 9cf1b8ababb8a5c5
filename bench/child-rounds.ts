// The in-process micro-benches' A/B: each checkout measured in a child process of its own (its own
// JIT and heap), the checkouts alternating and their order reversed every other round, so a drift
// of the machine falls on both alike (bench/RESULTS.md, "Run-to-run variation").
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs `script` `rounds` times per checkout in `dirs`, the checkout's path in the child's `envName`;
 * each child prints its result as one JSON text. `line` says what one result was, as it arrives.
 */
export function childRounds<R>(
  script: string,
  envName: string,
  dirs: readonly string[],
  rounds: number,
  line: (round: number, dir: string, r: R) => string,
): Map<string, R[]> {
  const results = new Map<string, R[]>(dirs.map((d) => [d, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const d of round % 2 ? dirs : [...dirs].reverse()) {
      const r = spawnSync(process.execPath, [script], { env: { ...process.env, [envName]: d }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      const v = JSON.parse(r.stdout) as R;
      results.get(d)!.push(v);
      process.stdout.write(`${line(round, d, v)}\n`);
    }
  }
  return results;
}

/** The ledger and its sqlite store as a checkout has them (the ledger benches' children load `src`'s own). */
export async function ledgerModules(src: string): Promise<{
  Ledger: typeof import('../src/services/usage/ledger.ts').Ledger;
  SqliteLedgerStore: typeof import('../src/services/usage/sqlite-ledger-store.ts').SqliteLedgerStore;
}> {
  const { Ledger } = (await import(
    join(src, 'src/services/usage/ledger.ts')
  )) as typeof import('../src/services/usage/ledger.ts');
  const { SqliteLedgerStore } = (await import(
    join(src, 'src/services/usage/sqlite-ledger-store.ts')
  )) as typeof import('../src/services/usage/sqlite-ledger-store.ts');
  return { Ledger, SqliteLedgerStore };
}
