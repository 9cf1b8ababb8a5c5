import type Koa from 'koa';
import { extractCredential } from '../auth/extract-credential.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import { enforceKeyLimits } from '../limits/key-limits.ts';
import type { RequestState } from '../pipeline/request-state.ts';
import { enforceBudget } from '../usage/budgets.ts';
import type { Family } from './family.ts';

/**
 * Resolves the caller's key from the family's credential; sets `ctx.state.key` or answers 401.
 * The key's budget (src/usage/budgets.ts), then its rpm and concurrency limits apply right after,
 * for every family (src/limits/).
 */
export function authenticate(family: Family): Koa.Middleware {
  return async (ctx, next) => {
    const state = ctx.state as RequestState;
    const key = state.runtime.keys.authenticate(extractCredential(family, ctx.headers, ctx.query));
    if (!key) throw new GatewayError('authentication', 'invalid or missing API key');
    state.key = key;
    await enforceBudget(ctx);
    await enforceKeyLimits(ctx, next);
  };
}
