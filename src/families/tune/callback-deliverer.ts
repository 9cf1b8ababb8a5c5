// notify_hook callbacks: when a task reaches SUCCESS or FAIL, polygate POSTs the task object (as
// GET /tune/fetch/{id} returns it) to the hook, signed, and retries with exponential backoff
// until a 2xx or tune.callback.max_attempts. The delivery id is made once when the task finishes
// and stored with the queued body, so retries and restarts resend the same delivery.
import type { Logger } from 'pino';
import { request } from 'undici';
import type { TuneConfig } from '../../infra/config/gateway-config.ts';
import { callbackDeliveriesTotal } from '../../infra/metrics/registry.ts';
import { checkOutboundUrl, outboundAgent, SsrfRefused } from '../../infra/outbound/ssrf-guard.ts';
import { signCallback } from '../../infra/outbound/sign-webhook.ts';
import type { Claimed } from '../../infra/store/store.ts';
import { TaskStore, type CallbackRecord } from './task-store.ts';

// Signed under tune.callback.secret as every webhook of polygate is (src/infra/outbound/sign-webhook.ts).
export { signCallback };

export function callbackHeaders(rec: CallbackRecord, secret: string, now: number): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const h: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'polygate-callback/1',
    'x-polygate-delivery': rec.deliveryId,
    'x-polygate-timestamp': timestamp,
    'x-polygate-attempt': String(rec.attempts),
  };
  if (secret) h['x-polygate-signature'] = signCallback(secret, timestamp, rec.body);
  return h;
}

/** Delay before attempt n+1 after n failed attempts: backoff_ms doubling, capped, ±10 % jitter. */
export function retryDelay(cfg: TuneConfig['callback'], failedAttempts: number): number {
  const base = Math.min(cfg.max_backoff_ms, cfg.backoff_ms * 2 ** Math.min(failedAttempts - 1, 30));
  return Math.round(base * (0.9 + Math.random() * 0.2));
}

type Outcome = 'delivered' | 'http_error' | 'network_error' | 'refused';

async function attempt(
  rec: CallbackRecord,
  cfg: TuneConfig,
  allowPrivate: boolean,
): Promise<{ outcome: Outcome; status?: number; error?: string }> {
  try {
    // Literal IP hosts are checked here; names are checked (and pinned) by the agent's lookup.
    await checkOutboundUrl(rec.url, allowPrivate);
    const res = await request(rec.url, {
      method: 'POST',
      headers: callbackHeaders(rec, cfg.callback.secret, Date.now()),
      body: rec.body,
      dispatcher: outboundAgent(allowPrivate),
      headersTimeout: cfg.callback.timeout_ms,
      bodyTimeout: cfg.callback.timeout_ms,
    });
    await res.body.dump();
    if (res.statusCode >= 200 && res.statusCode < 300) return { outcome: 'delivered', status: res.statusCode };
    return { outcome: 'http_error', status: res.statusCode, error: `HTTP ${res.statusCode}` };
  } catch (e) {
    const refused =
      e instanceof SsrfRefused ||
      (e as { code?: unknown }).code === 'EPOLYGATE_SSRF' ||
      (e as { cause?: { code?: unknown } }).cause?.code === 'EPOLYGATE_SSRF';
    return { outcome: refused ? 'refused' : 'network_error', error: (e as Error).message };
  }
}

export type DeliverDeps = { tune: TuneConfig; allowPrivate: boolean; tasks: TaskStore; log: Logger };

/** One attempt for each claimed delivery, then the next attempt is scheduled or the delivery closed. */
export async function deliverCallbacks(docs: Claimed<CallbackRecord>[], d: DeliverDeps): Promise<void> {
  await Promise.all(
    docs.map(async (doc) => {
      const rec = doc.data;
      if (rec.state !== 'pending') return void (await d.tasks.saveCallback(doc, null));
      rec.attempts++;
      const r = await attempt(rec, d.tune, d.allowPrivate);
      callbackDeliveriesTotal.inc({ outcome: r.outcome });
      rec.lastStatus = r.status;
      rec.lastError = r.error;
      let dueAt: number | null = null;
      const log = {
        delivery_id: rec.deliveryId,
        task_id: rec.taskId,
        attempt: rec.attempts,
        outcome: r.outcome,
        status: r.status,
        error: r.error,
      };
      if (r.outcome === 'delivered') {
        rec.state = 'delivered';
        d.log.info(log, 'callback delivered');
      } else if (r.outcome === 'refused' || rec.attempts >= d.tune.callback.max_attempts) {
        // A hook that now resolves inward is refused for good, as it would have been at submission.
        rec.state = 'abandoned';
        callbackDeliveriesTotal.inc({ outcome: 'abandoned' });
        d.log.warn(log, 'callback abandoned');
      } else {
        dueAt = Date.now() + retryDelay(d.tune.callback, rec.attempts);
        d.log.info({ ...log, retry_in_ms: dueAt - Date.now() }, 'callback attempt failed');
      }
      if (!(await d.tasks.saveCallback(doc, dueAt)))
        d.log.warn(log, 'callback lease lost; another worker owns the delivery');
    }),
  );
}
