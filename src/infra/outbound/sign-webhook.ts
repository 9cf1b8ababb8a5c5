// The signature of every webhook polygate sends: music callbacks (src/families/tune/) and budget
// soft limits (src/services/access/budget-webhook.ts). One function, so a receiver checks both the
// same way (docs/tune.md, docs/usage-and-tracing.md).
import { createHmac } from 'node:crypto';

/**
 * `v1=` + hex HMAC-SHA256 of `<timestamp>.<body>` under the secret. The timestamp is signed too,
 * so a receiver that rejects old timestamps also rejects replays.
 */
export function signCallback(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
