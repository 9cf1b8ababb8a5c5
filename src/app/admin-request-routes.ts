// The request log's admin API (#25, docs/usage-and-tracing.md "Request log"): the ledger's records
// one by one, newest first, with filters and cursor pagination, as JSON or CSV; one request with its
// captured content; that content deleted. Behind the admin gate (src/app/admin-routes.ts), which
// checks the token before any routing.
import { GatewayError } from '../ir/gateway-error.ts';
import { encodeCursor, rowOf, rowsCsv, type RequestLogStore } from '../services/usage/request-log.ts';
import type { Ledger } from '../services/usage/ledger.ts';
import { parseRequestId, parseRequestQuery } from '../services/usage/request-log-query.ts';
import type { GatewayContext, GatewayRouter } from '../services/runtime/gateway-context.ts';

function requestLogOf(ctx: GatewayContext): { ledger: Ledger; log: RequestLogStore; token: string } {
  const state = ctx.state;
  const token = state.runtime.config.admin.token;
  // The gate has checked it; without a token no admin path answers.
  if (token === undefined) throw new GatewayError('not-found', 'the admin API is off (set admin.token in the config)');
  const ledger = state.services.ledger.of(state.runtime.config);
  if (!ledger?.store.requestLog) throw new GatewayError('not-found', 'the usage ledger is off (usage.ledger: false)');
  return { ledger, log: ledger.store.requestLog, token };
}

/** A request body on a GET or DELETE of this API is refused rather than ignored (no field of it would apply). */
function noBody(ctx: GatewayContext): void {
  if (Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding'))
    throw new GatewayError('invalid-request', 'this endpoint takes no request body');
}

function noQuery(ctx: GatewayContext): void {
  const name = Object.keys(ctx.query)[0];
  if (name !== undefined) {
    const shown = name.slice(0, 64).replace(/[^\x20-\x7e]/g, '?');
    throw new GatewayError('invalid-request', `${shown}: not a parameter of this endpoint`, { param: shown });
  }
}

export function registerRequestRoutes(router: GatewayRouter): void {
  /** ?key= &workspace= &model= &provider= &outcome= &status= &since= &until= &limit= &cursor= &format=json|csv */
  router.get('/admin/requests', async (ctx) => {
    noBody(ctx);
    const { ledger, log, token } = requestLogOf(ctx);
    const q = parseRequestQuery(ctx.query, Date.now(), token);
    // Records of this instance still queued are written first, so the answer includes them.
    await ledger.flush();
    const page = await log.list(q);
    const data = page.records.map(rowOf);
    const next = page.next === undefined ? null : encodeCursor(page.next, q.filters, token);
    const csv =
      q.format === 'csv' || (q.format === undefined && ctx.accepts('application/json', 'text/csv') === 'text/csv');
    ctx.set('cache-control', 'no-store');
    if (csv) {
      ctx.type = 'text/csv; charset=utf-8';
      // The next page's cursor travels in a header: CSV has no place for it.
      if (next !== null) ctx.set('x-next-cursor', next);
      ctx.body = rowsCsv(data);
      return;
    }
    ctx.body = { data, next_cursor: next };
  });

  router.get('/admin/requests/:request_id', async (ctx) => {
    noBody(ctx);
    noQuery(ctx);
    const { ledger, log } = requestLogOf(ctx);
    const id = parseRequestId(ctx.params.request_id);
    await ledger.flush();
    const found = await log.get(id);
    if (!found) throw new GatewayError('not-found', `no request '${id}' in the request log`);
    const c = found.hasContent ? await log.content(id, found.record.ts) : undefined;
    ctx.set('cache-control', 'no-store');
    ctx.body = {
      ...rowOf(found),
      content:
        c === undefined
          ? null
          : {
              request: c.request,
              response: c.response,
              request_truncated: c.request_truncated,
              response_truncated: c.response_truncated,
              max_bytes: c.max_bytes,
            },
    };
  });

  router.delete('/admin/requests/:request_id/content', async (ctx) => {
    noBody(ctx);
    noQuery(ctx);
    const { ledger, log } = requestLogOf(ctx);
    const id = parseRequestId(ctx.params.request_id);
    await ledger.flush();
    if (!(await log.get(id))) throw new GatewayError('not-found', `no request '${id}' in the request log`);
    await log.deleteContent(id);
    ctx.status = 204;
  });
}
