// Issue #25, item 2: a provider budget holds under concurrency as a key budget does
// (test/usage/budget-concurrency.test.ts): 200 concurrent requests with the Anthropic SDK on the
// memory and sqlite stores, and on two instances sharing one real redis-server (budget-load.ts).
import t from 'tap';
import { runScope } from './budget-load.ts';

// Three gateways' worth of 200 requests each on a shared 2-core machine.
t.setTimeout(400_000);
await runScope(t, 'provider', 4);
