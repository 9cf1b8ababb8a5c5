import { GatewayError } from '../../ir/gateway-error.ts';
import { enforceKeyLimits } from './key-limits.ts';
import { enforceBudget } from './budgets.ts';
import type { FormatModule } from '../../infra/formats/formats.ts';
import { authenticateKey, isRefusal } from '../auth/runtime-keys.ts';
import { queryOf, type GatewayMiddleware } from '../runtime/gateway-context.ts';

/**
 * The admission every authenticated route mounts, for every format: the caller's key from the
 * credential where the format's clients send it (`ctx.state.key`, or a 401), then the key's budget
 * (src/services/access/budgets.ts), then its rpm and concurrency limits
 * (src/services/access/key-limits.ts), whose concurrency slot is held to the response's close.
 */
export function admitRequest(format: FormatModule): GatewayMiddleware {
  // Not an async function: a request admitted at once (no budget store to wait for, an in-process
  // limit counter) pays for no promise of its own; a throw is the chain's rejection (koa-compose).
  return (ctx, next) => {
    const state = ctx.state;
    const credential = format.credential(ctx.headers, queryOf(ctx));
    // The YAML's keys, then those created at runtime (issue #25); each is one digest lookup.
    const key = authenticateKey(state.runtime.keys, state.services.keys, credential);
    if (!key) throw new GatewayError('authentication', 'invalid or missing API key');
    if (isRefusal(key)) throw new GatewayError('authentication', key.refused);
    state.key = key;
    const budget = enforceBudget(ctx);
    if (budget) return budget.then(() => enforceKeyLimits(ctx, next));
    return enforceKeyLimits(ctx, next);
  };
}
