// The admin read API (docs/usage-and-tracing.md): usage and spend for operators, behind its own
// token (admin.token), never a client key. Off (404) while no token is configured.
import { adminTokenMatches } from './admin-throttle.ts';
import { csrfHeader, sessionAdmits } from './console/console-sessions.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import { budgetRows, budgetScopes } from '../services/access/budget-status.ts';
import { buildReport, parseReportQuery, reportCsv } from '../services/usage/usage-report.ts';
import type { GatewayContext, GatewayMiddleware, GatewayRouter } from '../services/runtime/gateway-context.ts';

const requireAdmin: GatewayMiddleware = async (ctx, next) => {
  const token = ctx.state.runtime.config.admin.token;
  if (token === undefined) throw new GatewayError('not-found', 'the admin API is off (set admin.token in the config)');
  // The operator console's session (src/app/console/): a cookie plus its CSRF header, only when
  // no Authorization header is sent (a Bearer caller is judged by its token alone).
  const session = ctx.get('authorization') === '' ? sessionAdmits(ctx, ctx.state.services, token) : 'none';
  if (session === 'no-csrf')
    throw new GatewayError('permission', `a console session must send its CSRF token in the ${csrfHeader} header`);
  if (session === 'ok') return next();
  const presented = ctx.get('authorization');
  // Only a token presented is a guess (a console page whose session ended is told so, not held back).
  if (presented === '' || !adminTokenMatches(ctx, presented, `Bearer ${token}`)) {
    throw new GatewayError(
      'authentication',
      session === 'expired'
        ? 'the console session has ended; sign in again'
        : 'the admin API needs Authorization: Bearer <admin.token>; client API keys are not accepted',
    );
  }
  await next();
};

/**
 * Any method on any path under /admin (the router's case and trailing-slash rules): the token is
 * checked before routing, so no admin path answers anything (an OPTIONS `allow` list, a 405 naming
 * the methods) to a caller without it (issue #30, finding 11).
 */
export const adminGate: GatewayMiddleware = (ctx, next) =>
  // `/admin` or under it in any case: what lowercasing the path and comparing found, without the
  // lowercased copy (an ASCII-only case fold; no other character lowercases into these letters).
  adminPath.test(ctx.path) ? requireAdmin(ctx, next) : next();

const adminPath = /^\/admin(?:\/|$)/i;

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

  /**
   * Every budget (keys of the config and runtime ones, workspaces, providers), one row per limit,
   * with what is used of it now: `{data, next_cursor}` (docs/usage-and-tracing.md). `?limit=`
   * (default 50, at most 500) rows a page, `?cursor=` the previous page's next_cursor.
   */
  router.get('/admin/budgets', requireAdmin, async (ctx) => {
    const config = ctx.state.runtime.config;
    const ledger = ledgerOfRequest(ctx);
    const { limit, offset } = pageOf(ctx.query);
    const now = Date.now();
    // Rows of this instance still queued are written first, as for /admin/usage.
    await ledger.flush();
    // Runtime keys' budgets from this gateway's key table (issue #25, keys at runtime).
    const keys = ctx.state.services.keys;
    const scopes = await budgetScopes(config, () => keys.table.all());
    // Only the scopes whose rows fall in the page are read: one row per limit in force.
    const page = [];
    let first = 0;
    let at = 0;
    for (const s of scopes) {
      const end = at + s.limits.length;
      if (end > offset && at < offset + limit) {
        if (page.length === 0) first = at;
        page.push(s);
      }
      at = end;
    }
    const rows = (await budgetRows(ledger, page, now)).slice(offset - first, offset - first + limit);
    const next = offset + limit < at ? Buffer.from(`o:${offset + limit}`).toString('base64url') : null;
    ctx.body = { data: rows, next_cursor: next };
  });
}

/** `limit` and `cursor` (an opaque offset); any other parameter or a bad value is a 400 naming it. */
function pageOf(query: Record<string, string | string[] | undefined>): { limit: number; offset: number } {
  for (const name of Object.keys(query))
    if (name !== 'limit' && name !== 'cursor')
      throw new GatewayError('invalid-request', `unknown query parameter '${name.slice(0, 64)}'`, {
        param: name.slice(0, 64),
      });
  const one = (name: string): string | undefined => {
    const v = query[name];
    if (Array.isArray(v))
      throw new GatewayError('invalid-request', `'${name}' is given more than once`, { param: name });
    return v;
  };
  const l = one('limit');
  const limit = l === undefined ? 50 : Number(l);
  if (!/^\d{1,3}$/.test(l ?? '50') || limit < 1 || limit > 500)
    throw new GatewayError('invalid-request', "'limit' must be a whole number from 1 to 500", { param: 'limit' });
  const c = one('cursor');
  if (c === undefined) return { limit, offset: 0 };
  const m = c.length <= 32 ? /^o:(\d{1,9})$/.exec(Buffer.from(c, 'base64url').toString()) : null;
  if (!m) throw new GatewayError('invalid-request', "'cursor' is not one this API gave", { param: 'cursor' });
  return { limit, offset: Number(m[1]) };
}
