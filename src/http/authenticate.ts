import type Koa from 'koa';
import { GatewayError } from '../ir/gateway-error.ts';
import { enforceKeyLimits } from '../limits/key-limits.ts';
import type { RequestState } from '../pipeline/request-state.ts';
import { enforceBudget } from '../usage/budgets.ts';
import type { FormatModule } from '../formats.ts';

/**
 * Resolves the caller's key from the credential where the format's clients send it; sets `ctx.state.key` or answers 401.
 * The key's budget (src/usage/budgets.ts), then its rpm and concurrency limits apply right after,
 * for every format (src/limits/).
 */
export function authenticate(format: FormatModule): Koa.Middleware {
  return async (ctx, next) => {
    const state = ctx.state as RequestState;
    const key = state.runtime.keys.authenticate(format.credential(ctx.headers, ctx.query));
    if (!key) throw new GatewayError('authentication', 'invalid or missing API key');
    state.key = key;
    await enforceBudget(ctx);
    await enforceKeyLimits(ctx, next);
  };
}
