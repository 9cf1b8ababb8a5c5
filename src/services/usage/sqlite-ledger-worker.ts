// The thread that owns the sqlite ledger's connection (src/services/usage/sqlite-worker-ledger-store.ts):
// node:sqlite is synchronous, so every insert, and the WAL checkpoint that a commit runs now and
// then (10–40 ms, bench/RESULTS.md), happens here instead of on the thread that serves requests.
// One request at a time, in the order they came: an append is in the file before a later read.
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteLedgerStore } from './sqlite-ledger-store.ts';
import type { LedgerCall, LedgerReply } from './sqlite-worker-ledger-store.ts';

const store = new SqliteLedgerStore((workerData as { path: string }).path);
const port = parentPort!;

async function run(call: LedgerCall): Promise<unknown> {
  switch (call.op) {
    case 'append':
      return store.appendValues(call.values, call.totals);
    case 'totals':
      return store.totals(call.key, call.day, call.month);
    case 'rows':
      return store.rows(call.filter);
    case 'prune':
      return store.prune(call.day);
    case 'close':
      return store.close();
    default: {
      const never: never = call;
      return never;
    }
  }
}

port.on('message', (call: LedgerCall) => {
  let reply: Promise<LedgerReply>;
  try {
    reply = run(call).then(
      (value) => ({ id: call.id, value }),
      (err: unknown) => ({ id: call.id, error: err instanceof Error ? err.message : String(err) }),
    );
  } catch (err) {
    reply = Promise.resolve({ id: call.id, error: err instanceof Error ? err.message : String(err) });
  }
  void reply.then((r) => {
    port.postMessage(r);
    if (call.op === 'close') port.close();
  });
});
