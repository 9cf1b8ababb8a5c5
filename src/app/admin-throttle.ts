// Wrong admin tokens by client address (src/services/auth/failed-auth-throttle.ts): the admin
// API's Bearer and the console's sign-in form share one count per gateway, by the connection's
// own address (a forwarded-for header is the client's to write). Only a token presented counts:
// a console page whose session ended is told so, not held back.
import { GatewayError } from '../ir/gateway-error.ts';
import { FailedAuthThrottle } from '../services/auth/failed-auth-throttle.ts';
import { sameSecret } from '../services/auth/same-secret.ts';
import type { GatewayContext } from '../services/runtime/gateway-context.ts';

const throttles = new WeakMap<object, FailedAuthThrottle>();

function throttleOf(services: object): FailedAuthThrottle {
  let t = throttles.get(services);
  if (!t) throttles.set(services, (t = new FailedAuthThrottle()));
  return t;
}

const addressOf = (ctx: GatewayContext): string => ctx.req.socket.remoteAddress ?? '';

/**
 * Whether `presented` is the admin token, compared in constant time, for a caller not past its
 * wrong tokens (else a 429, before comparing); the answer is counted for its address.
 */
export function adminTokenMatches(ctx: GatewayContext, presented: string, expected: string): boolean {
  const throttle = throttleOf(ctx.state.services);
  const address = addressOf(ctx);
  const wait = throttle.waitSeconds(address, ctx.state.runtime.config.admin.wrong_tokens_per_minute);
  if (wait > 0)
    throw new GatewayError('rate-limit', `too many wrong admin tokens from this address; try again in ${wait} s`, {
      retryAfter: wait,
    });
  const right = sameSecret(presented, expected);
  if (right) throttle.succeeded(address);
  else throttle.failed(address);
  return right;
}
