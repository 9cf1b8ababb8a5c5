// Issue #23, item 3: a key's budget holds under concurrency: 200 requests of one budgeted key at
// once with the Anthropic SDK, on the memory and sqlite stores and on two instances sharing one real
// redis-server; the spend stays within one request's cost per instance of the budget, and every
// request the upstream served is in the ledger (test/usage/budget-load.ts).
import t from 'tap';
import { runScope } from './budget-load.ts';

// Three gateways' worth of 200 requests each on a shared 2-core machine.
t.setTimeout(400_000);
await runScope(t, 'key', 3);
