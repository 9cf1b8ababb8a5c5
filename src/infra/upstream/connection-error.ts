// How a call that got no HTTP answer failed, for every upstream call polygate makes: translated
// chat calls, relays (src/families/chat/pass-through.ts), speech and music tasks. One wording per
// timeout, so an operator reads the same message whichever path timed out.
import { errors as undiciErrors } from 'undici';
import { GatewayError } from '../../ir/gateway-error.ts';
import { markCause } from './failure-cause.ts';
import type { RouteTimeouts } from '../config/route-policy.ts';

export type TimeoutSetting = 'connect' | 'first-byte' | 'idle';

const what: Record<TimeoutSetting, string> = {
  connect: 'did not accept the connection',
  'first-byte': 'did not start answering',
  idle: 'sent nothing more',
};

/** The error of an upstream timeout, naming the setting to look at (and its value when known). */
export function timeoutError(provider: string, setting: TimeoutSetting, ms: number | undefined): GatewayError {
  return new GatewayError(
    'timeout',
    `provider '${provider}' ${what[setting]}${ms !== undefined ? ` within ${ms} ms` : ''} (${setting} timeout)`,
  );
}

/**
 * Classifies a failed upstream call without leaking URLs or credentials into the message. A
 * refused or reset connection is marked `connection` (nothing reached the upstream).
 */
export function connectionError(e: unknown, provider: string, timeouts?: Partial<RouteTimeouts>): GatewayError {
  if (e instanceof GatewayError) return e;
  if (e instanceof undiciErrors.ConnectTimeoutError) return timeoutError(provider, 'connect', timeouts?.connectMs);
  if (e instanceof undiciErrors.HeadersTimeoutError) return timeoutError(provider, 'first-byte', timeouts?.firstByteMs);
  if (e instanceof undiciErrors.BodyTimeoutError) return timeoutError(provider, 'idle', timeouts?.idleMs);
  if (e instanceof Error && e.name === 'AbortError')
    return new GatewayError('internal', 'request aborted', { status: 499 });
  const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
  return markCause(
    new GatewayError('upstream', `provider '${provider}' could not be reached${code ? ` (${code})` : ''}`, {
      status: 502,
    }),
    'connection',
  );
}
