// Wrong admin tokens by client address (src/services/auth/failed-auth-throttle.ts): the admin
// API's Bearer and the console's sign-in form share one count per gateway, by the connection's
// own address (a forwarded-for header is the client's to write). Only a token presented counts:
// a console page whose session ended is told so, not held back.
import { GatewayError } from '../ir/gateway-error.ts';
import { FailedAuthThrottle } from '../services/auth/failed-auth-throttle.ts';
import type { GatewayContext } from '../services/runtime/gateway-context.ts';

const throttles = new WeakMap<object, FailedAuthThrottle>();

function throttleOf(services: object): FailedAuthThrottle {
  let t = throttles.get(services);
  if (!t) throttles.set(services, (t = new FailedAuthThrottle()));
  return t;
}

const addressOf = (ctx: GatewayContext): string => ctx.req.socket.remoteAddress ?? '';

/** Refuses an address past `admin.wrong_tokens_per_minute`, before its token is compared. */
export function refuseGuesser(ctx: GatewayContext): void {
  const limit = ctx.state.runtime.config.admin.wrong_tokens_per_minute;
  const wait = throttleOf(ctx.state.services).waitSeconds(addressOf(ctx), limit);
  if (wait > 0)
    throw new GatewayError('rate-limit', `too many wrong admin tokens from this address; try again in ${wait} s`, {
      retryAfter: wait,
    });
}

/** Counts the token just compared: right, or one more wrong one. */
export function adminTokenTried(ctx: GatewayContext, right: boolean): void {
  const t = throttleOf(ctx.state.services);
  if (right) t.succeeded(addressOf(ctx));
  else t.failed(addressOf(ctx));
}
