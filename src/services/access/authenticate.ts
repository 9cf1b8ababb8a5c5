import type Koa from 'koa';
import { GatewayError } from '../../ir/gateway-error.ts';
import { enforceKeyLimits } from './key-limits.ts';
import type { RequestState } from '../runtime/request-state.ts';
import { enforceBudget } from './budgets.ts';
import type { FormatModule } from '../../infra/formats/formats.ts';
import { authenticateKey, isRefusal } from '../auth/runtime-keys.ts';

/**
 * Resolves the caller's key from the credential where the format's clients send it; sets `ctx.state.key` or answers 401.
 * The key's budget (src/services/access/budgets.ts), then its rpm and concurrency limits apply right after,
 * for every format (src/services/limits/).
 */
export function authenticate(format: FormatModule): Koa.Middleware {
  return async (ctx, next) => {
    const state = ctx.state as RequestState;
    const credential = format.credential(ctx.headers, ctx.query);
    // The YAML's keys, then those created at runtime (issue #25); each is one digest lookup.
    const key = authenticateKey(state.runtime.keys, state.services.keys, credential);
    if (!key) throw new GatewayError('authentication', 'invalid or missing API key');
    if (isRefusal(key)) throw new GatewayError('authentication', key.refused);
    state.key = key;
    await enforceBudget(ctx);
    await enforceKeyLimits(ctx, next);
  };
}
