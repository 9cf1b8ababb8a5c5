// The `anthropic-version` header every Messages request must carry (the real API refuses a
// request without one), checked before routing: a relay needs it as much as a translation.
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { WireHeaders } from '../shared/chat-adapter.ts';

export function header(headers: WireHeaders, name: string): string[] {
  const v = headers[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * Versions already accepted: a gateway's clients send one or two, so each is parsed once (parsing
 * cost ~1 KB of garbage per request). Bounded, as the values are the client's.
 */
const accepted = new Set<string>();

/** `anthropic-version` is required and date-shaped; every real date is accepted (old and new SDKs). */
export function checkVersion(headers: WireHeaders): void {
  const raw = headers['anthropic-version'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v !== undefined && accepted.has(v)) return;
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
  if (accepted.size < 64) accepted.add(v);
}
