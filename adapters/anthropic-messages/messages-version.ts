// The `anthropic-version` header every Messages request must carry (the real API refuses a
// request without one), checked before routing: a relay needs it as much as a translation.
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { WireHeaders } from '../shared/chat-adapter.ts';

export function header(headers: WireHeaders, name: string): string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** `anthropic-version` is required and date-shaped; every real date is accepted (old and new SDKs). */
export function checkVersion(headers: WireHeaders): void {
  const [v] = header(headers, 'anthropic-version');
  if (v === undefined || v.trim() === '')
    throw new GatewayError('invalid-request', 'anthropic-version: header is required', { param: 'anthropic-version' });
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v.trim());
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!m || !date || date.getUTCMonth() !== Number(m[2]) - 1 || date.getUTCDate() !== Number(m[3])) {
    throw new GatewayError(
      'invalid-request',
      `anthropic-version: header must be a date of the form YYYY-MM-DD (got '${v}')`,
      { param: 'anthropic-version' },
    );
  }
}
