import type Koa from 'koa';
import { GatewayError } from '../../ir/gateway-error.ts';
import { repositoryOf } from '../../services/sessions/responses-session.ts';
import { routeParam } from '../../infra/http/route-params.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

const notFound = (id: string): GatewayError =>
  new GatewayError('not-found', `Response with id '${id}' not found.`, { param: 'response_id' });

const workspace = (ctx: GatewayContext): string => ctx.state.key.workspace;

/**
 * The stored responses' endpoints (routes of adapters/openai-responses/index.ts; create is the
 * format's chat route): GET and DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items.
 * Every read is scoped to the caller's workspace: another workspace's id is "not found", like an
 * unknown one.
 */
export const storedResponseHandlers = {
  'stored-response-get': (): Koa.Middleware => async (ctx) => {
    const id = routeParam(ctx, 'id');
    const r = await repositoryOf(ctx).get(id, workspace(ctx));
    if (!r) throw notFound(id);
    ctx.body = r.response;
  },
  'stored-response-delete': (): Koa.Middleware => async (ctx) => {
    const id = routeParam(ctx, 'id');
    if (!(await repositoryOf(ctx).delete(id, workspace(ctx)))) throw notFound(id);
    ctx.body = { id, object: 'response', deleted: true };
  },
  'stored-response-input-items': (): Koa.Middleware => async (ctx) => {
    const id = routeParam(ctx, 'id');
    const r = await repositoryOf(ctx).get(id, workspace(ctx));
    if (!r) throw notFound(id);
    ctx.body = paginate(r.inputItems, ctx.query);
  },
};

/**
 * Cursor pagination as OpenAI lists do it: `order` (default `desc`, newest first), `limit`
 * 1–100 (default 20), `after` / `before` an item id of the previous page.
 */
export function paginate(items: Record<string, unknown>[], q: Record<string, unknown>) {
  const order = q.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    throw new GatewayError('invalid-request', "order: must be 'asc' or 'desc'", { param: 'order' });
  const limit = q.limit === undefined ? 20 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new GatewayError('invalid-request', 'limit: must be an integer from 1 to 100', { param: 'limit' });
  const list = order === 'asc' ? items : [...items].reverse();
  const cursor = (name: 'after' | 'before'): number | undefined => {
    const v = q[name];
    if (v === undefined) return undefined;
    const at = list.findIndex((i) => i.id === v);
    if (at < 0)
      throw new GatewayError('invalid-request', `${name}: no item with id '${String(v)}' in this list`, {
        param: name,
      });
    return at;
  };
  const after = cursor('after');
  const before = cursor('before');
  let start = after === undefined ? 0 : after + 1;
  let end = before === undefined ? list.length : before;
  // `before` alone pages backwards: the `limit` items right before the cursor.
  if (before !== undefined && after === undefined) start = Math.max(0, end - limit);
  else end = Math.min(end, start + limit);
  const data = list.slice(start, end);
  const hasMore = before !== undefined && after === undefined ? start > 0 : end < (before ?? list.length);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: hasMore,
  };
}
