import { GatewayError } from '../../ir/gateway-error.ts';
import { enforceKeyLimits } from './key-limits.ts';
import { enforceBudget } from './budgets.ts';
import type { FormatModule } from '../../infra/formats/formats.ts';
import type { GatewayMiddleware } from '../runtime/gateway-context.ts';

/**
 * The admission every authenticated route mounts, for every format: the caller's key from the
 * credential where the format's clients send it (`ctx.state.key`, or a 401), then the key's budget
 * (src/services/access/budgets.ts), then its rpm and concurrency limits
 * (src/services/access/key-limits.ts), whose concurrency slot is held to the response's close.
 */
export function admitRequest(format: FormatModule): GatewayMiddleware {
  return async (ctx, next) => {
    const state = ctx.state;
    const key = state.runtime.keys.authenticate(format.credential(ctx.headers, ctx.query));
    if (!key) throw new GatewayError('authentication', 'invalid or missing API key');
    state.key = key;
    await enforceBudget(ctx);
    await enforceKeyLimits(ctx, next);
  };
}
