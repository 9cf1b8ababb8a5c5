// The soft limit of a budget (limits[].soft_ratio, docs/usage-and-tracing.md): when a scope's
// spend reaches that share of a limit, one signed POST to usage.budget_webhook per scope, limit
// and window. "Once" holds across every instance sharing the ledger's store: the first to set the
// window's flag in the store sends it (LedgerStore.claimOnce). Sent in the background, through
// the SSRF guard, with a bounded number of attempts: a request never waits for it.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { request } from 'undici';
import type { BudgetScope } from '../../infra/config/budget-spec.ts';
import type { GatewayConfig } from '../../infra/config/gateway-config.ts';
import { budgetWebhooksTotal } from '../../infra/metrics/registry.ts';
import { signCallback } from '../../infra/outbound/sign-webhook.ts';
import { checkOutboundUrl, outboundAgent, SsrfRefused } from '../../infra/outbound/ssrf-guard.ts';
import type { Ledger } from '../usage/ledger.ts';
import type { BudgetUse } from './budget-scopes.ts';

/** Attempts per webhook, and the first wait between two (doubled each time, at most `maxBackoffMs`). */
export const webhookAttempts = 5;
const backoffMs = 1000;
const maxBackoffMs = 30_000;
const timeoutMs = 10_000;

/** Flags this instance already tried to set (either way): the store is asked once per window, not per request. */
const asked = new Set<string>();

/**
 * Called with a scope's uses as a request is checked: for each limit with a soft ratio reached,
 * claims the window's flag and sends the webhook if this call set it. Never throws, never waits.
 */
export function softLimitCheck(
  config: GatewayConfig,
  ledger: Ledger,
  log: Logger,
  scope: BudgetScope,
  store: string,
  uses: readonly BudgetUse[],
): void {
  const hook = config.usage.budget_webhook;
  if (hook === undefined) return;
  for (const u of uses) {
    if (u.softRatio === null || u.ratio < u.softRatio) continue;
    const flag = `soft:${store}:${u.period}:${u.windowStart.getTime()}`;
    if (asked.has(flag)) continue;
    if (asked.size > 10_000) asked.clear();
    asked.add(flag);
    // Kept a day past the window's end: an instance whose clock lags a little must not send it again.
    ledger.store.claimOnce(flag, u.resetsAt.getTime() + 86_400_000).then(
      (mine) => {
        if (mine) void send(hook, config.outbound.allow_private_addresses, log, scope, u);
      },
      (err: unknown) => {
        // Not set: a later check tries again.
        asked.delete(flag);
        log.warn({ err }, 'budget webhook: the once-per-period flag could not be set');
      },
    );
  }
}

/** The webhook's JSON body (docs/usage-and-tracing.md). */
export function webhookBody(scope: BudgetScope, u: BudgetUse, now: number): string {
  return JSON.stringify({
    type: 'budget.soft_limit',
    scope,
    period: u.period,
    limit_usd: u.limitUsd,
    limit_tokens: u.limitTokens,
    used_usd: u.usedUsd,
    used_tokens: u.usedTokens,
    ratio: u.ratio,
    soft_ratio: u.softRatio,
    window_start: u.windowStart.toISOString(),
    resets_at: u.resetsAt.toISOString(),
    sent_at: new Date(now).toISOString(),
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

async function send(
  hook: { url: string; secret: string },
  allowPrivate: boolean,
  log: Logger,
  scope: BudgetScope,
  u: BudgetUse,
): Promise<void> {
  const body = webhookBody(scope, u, Date.now());
  const delivery = randomUUID();
  const where = { delivery_id: delivery, scope, period: u.period };
  for (let attempt = 1; attempt <= webhookAttempts; attempt++) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'polygate-budget/1',
      'x-polygate-delivery': delivery,
      'x-polygate-timestamp': timestamp,
      'x-polygate-attempt': String(attempt),
    };
    if (hook.secret) headers['x-polygate-signature'] = signCallback(hook.secret, timestamp, body);
    let error: string;
    try {
      // Literal IP hosts are checked here; names are checked (and pinned) by the agent's lookup.
      await checkOutboundUrl(hook.url, allowPrivate);
      const res = await request(hook.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: outboundAgent(allowPrivate),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) {
        budgetWebhooksTotal.inc({ outcome: 'delivered' });
        log.info({ ...where, attempt }, 'budget webhook delivered');
        return;
      }
      error = `HTTP ${res.statusCode}`;
    } catch (e) {
      error = (e as Error).message;
      // An address the guard refuses stays refused: no second attempt.
      if (
        e instanceof SsrfRefused ||
        (e as { code?: unknown }).code === 'EPOLYGATE_SSRF' ||
        (e as { cause?: { code?: unknown } }).cause?.code === 'EPOLYGATE_SSRF'
      ) {
        budgetWebhooksTotal.inc({ outcome: 'refused' });
        log.warn(
          { ...where, attempt, error },
          'budget webhook refused: its address is not allowed (outbound.allow_private_addresses)',
        );
        return;
      }
    }
    log.warn({ ...where, attempt, error }, 'budget webhook attempt failed');
    if (attempt < webhookAttempts) await sleep(Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1)));
  }
  budgetWebhooksTotal.inc({ outcome: 'abandoned' });
}
