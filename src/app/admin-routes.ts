// The admin read API (docs/usage-and-tracing.md): usage and spend for operators, behind its own
// token (admin.token), never a client key. Off (404) while no token is configured.
import { sameSecret } from '../services/auth/same-secret.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import { budgetUses } from '../services/access/budgets.ts';
import { buildReport, parseReportQuery, reportCsv } from '../services/usage/usage-report.ts';
import type { GatewayContext, GatewayMiddleware, GatewayRouter } from '../services/runtime/gateway-context.ts';

const requireAdmin: GatewayMiddleware = async (ctx, next) => {
  const token = ctx.state.runtime.config.admin.token;
  if (token === undefined) throw new GatewayError('not-found', 'the admin API is off (set admin.token in the config)');
  if (!sameSecret(ctx.get('authorization'), `Bearer ${token}`)) {
    throw new GatewayError(
      'authentication',
      'the admin API needs Authorization: Bearer <admin.token>; client API keys are not accepted',
    );
  }
  await next();
};

/**
 * Any method on any path under /admin (the router's case and trailing-slash rules): the token is
 * checked before routing, so no admin path answers anything (an OPTIONS `allow` list, a 405 naming
 * the methods) to a caller without it (issue #30, finding 11).
 */
export const adminGate: GatewayMiddleware = async (ctx, next) => {
  const path = ctx.path.toLowerCase();
  if (path === '/admin' || path === '/admin/' || path.startsWith('/admin/')) return requireAdmin(ctx, next);
  await next();
};

function ledgerOfRequest(ctx: GatewayContext) {
  const state = ctx.state;
  const ledger = state.services.ledger.of(state.runtime.config);
  if (!ledger) throw new GatewayError('not-found', 'the usage ledger is off (usage.ledger: false)');
  return ledger;
}

export function registerUsageRoutes(router: GatewayRouter): void {
  /** ?since=7d|YYYY-MM-DD &until= &key= &model= &provider= &group_by=key,model,provider,day &format=json|csv */
  router.get('/admin/usage', requireAdmin, async (ctx) => {
    const config = ctx.state.runtime.config;
    const ledger = ledgerOfRequest(ctx);
    const q = parseReportQuery(ctx.query, Date.now(), config.usage.retention_days);
    // Records of this instance still queued are written first, so the answer includes them.
    await ledger.flush();
    const report = await buildReport(ledger.store, q);
    if (
      ctx.query.format === 'csv' ||
      (ctx.query.format === undefined && ctx.accepts('application/json', 'text/csv') === 'text/csv')
    ) {
      ctx.type = 'text/csv; charset=utf-8';
      ctx.body = reportCsv(report);
      return;
    }
    ctx.body = report;
  });

  /** Every key's budgets with what is used of them now. */
  router.get('/admin/budgets', requireAdmin, async (ctx) => {
    const config = ctx.state.runtime.config;
    const ledger = ledgerOfRequest(ctx);
    const now = Date.now();
    const keys = await Promise.all(
      Object.entries(config.usage.budgets).map(async ([key, budget]) => ({
        key,
        budgets: budgetUses(budget, await ledger.spent(key, now), now).map((u) => ({
          budget: u.budget,
          limit: u.limit,
          used: u.used,
          ratio: u.ratio,
          resets_at: u.resetsAt.toISOString(),
        })),
      })),
    );
    ctx.body = { keys };
  });
}
