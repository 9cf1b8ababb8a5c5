// The keys admin API (issue #25 item 1, docs/admin-api.md "Keys"): create, list, read, change,
// disable, enable, rotate and delete keys at runtime. Behind the admin gate (src/app/admin-routes.ts
// adminGate checks admin.token before any /admin route). Keys of the config file are listed and
// read here but are read-only: a write to one is a 409.
import { GatewayError } from '../ir/gateway-error.ts';
import { jsonBody } from '../infra/http/json-body.ts';
import type { RequestState } from '../services/runtime/request-state.ts';
import { applyChange, changeKey, createKey, deleteKey, rotateKey } from '../services/auth/key-admin.ts';
import type { StoredKey } from '../services/auth/key-table.ts';
import {
  checkQuery,
  conflict,
  idOf,
  pageLimitOf,
  parseEmpty,
  parseKeyChange,
  parseNewKey,
  parseRotation,
} from './key-input.ts';
import { configKeyView, runtimeKeyView, type KeyView } from './key-view.ts';
import type { GatewayContext, GatewayMiddleware, GatewayRouter } from '../services/runtime/gateway-context.ts';

/** Runtime keys an instance holds in memory at most. */
export const maxRuntimeKeys = 10_000;

const stateOf = (ctx: GatewayContext): RequestState => ctx.state;

/** A body is JSON or absent: a text/plain body would otherwise be read as "no change". */
const requireJson: GatewayMiddleware = async (ctx, next) => {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json'))
    throw new GatewayError('invalid-request', 'content-type: the body must be application/json', {
      status: 415,
      param: 'content-type',
    });
  await next();
};

/** A budget is enforced from the usage ledger: with the ledger off it would be a promise not kept. */
function checkBudgetEnforceable(ctx: GatewayContext, budget: unknown): void {
  if (budget && !stateOf(ctx).runtime.config.usage.ledger)
    throw new GatewayError(
      'invalid-request',
      'budget: budgets are enforced from the usage ledger, which is off (usage.ledger: false)',
      { param: 'budget' },
    );
}

/** The path's id, checked, and the read-only rule for the config file's keys. */
function writableId(ctx: GatewayContext): string {
  const id = idOf(ctx.params.id, 'id');
  if (stateOf(ctx).runtime.config.keys.some((k) => k.id === id))
    throw conflict(
      `key '${id}' is defined in the config file and is read-only here; change it in the file and reload`,
      'id',
    );
  return id;
}

const notFound = (id: string): GatewayError => new GatewayError('not-found', `no key '${id}'`, { param: 'id' });

function viewOf(ctx: GatewayContext, k: StoredKey): KeyView {
  return runtimeKeyView(k, stateOf(ctx).services.keys.now());
}

/** Sort position: runtime keys newest first, then the config file's in file order. */
type Position = [source: 0 | 1, order: number, id: string];
const after = (a: Position, b: Position): boolean =>
  a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2];

function cursorOf(v: unknown): Position | undefined {
  if (v === undefined) return undefined;
  try {
    if (typeof v !== 'string' || v.length > 512) throw new Error('too long');
    const p = JSON.parse(Buffer.from(v, 'base64url').toString()) as unknown;
    if (
      Array.isArray(p) &&
      p.length === 3 &&
      (p[0] === 0 || p[0] === 1) &&
      Number.isFinite(p[1]) &&
      typeof p[2] === 'string'
    )
      return p as Position;
  } catch {
    // answered below
  }
  throw new GatewayError('invalid-request', 'cursor: not a cursor this API gave', { param: 'cursor' });
}

const encodeCursor = (p: Position): string => Buffer.from(JSON.stringify(p)).toString('base64url');

async function list(ctx: GatewayContext): Promise<void> {
  checkQuery(ctx.query, ['workspace', 'limit', 'cursor']);
  const workspace = ctx.query.workspace === undefined ? undefined : idOf(ctx.query.workspace, 'workspace');
  const limit = pageLimitOf(ctx.query.limit);
  const from = cursorOf(ctx.query.cursor);
  const { runtime, services } = stateOf(ctx);
  await services.keys.sync();
  const now = services.keys.now();
  const rows: { pos: Position; view: () => KeyView }[] = [
    ...services.keys
      .list()
      .filter((k) => !runtime.config.keys.some((c) => c.id === k.id))
      .map((k) => ({ pos: [0, -k.created_at, k.id] as Position, view: () => runtimeKeyView(k, now) })),
    ...runtime.config.keys.map((k, i) => ({
      pos: [1, i, k.id] as Position,
      view: () => configKeyView(k, runtime.config),
    })),
  ]
    .filter(
      (r) =>
        (from === undefined || after(r.pos, from)) && (workspace === undefined || r.view().workspace === workspace),
    )
    .sort((a, b) => (after(a.pos, b.pos) ? 1 : -1));
  const page = rows.slice(0, limit);
  ctx.body = {
    data: page.map((r) => r.view()),
    next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1].pos) : null,
  };
}

async function create(ctx: GatewayContext): Promise<void> {
  checkQuery(ctx.query, []);
  const input = parseNewKey(ctx.request.body);
  checkBudgetEnforceable(ctx, input.budget);
  const { runtime, services } = stateOf(ctx);
  if (input.id !== undefined && runtime.config.keys.some((k) => k.id === input.id))
    throw conflict(`key '${input.id}' exists in the config file`, 'id');
  // This instance's copy: the cap bounds memory per instance, a few over it across instances is harmless.
  if (services.keys.size >= maxRuntimeKeys)
    throw conflict(`this gateway holds at most ${maxRuntimeKeys} runtime keys; delete unused ones first`);
  const made = await createKey(services.keys, input);
  if (!made) throw conflict(`key '${input.id}' exists`, 'id');
  ctx.status = 201;
  ctx.set('cache-control', 'no-store');
  ctx.body = { key: viewOf(ctx, made.key), secret: made.secret };
}

async function read(ctx: GatewayContext): Promise<void> {
  checkQuery(ctx.query, []);
  const id = idOf(ctx.params.id, 'id');
  const { runtime, services } = stateOf(ctx);
  const fromFile = runtime.config.keys.find((k) => k.id === id);
  if (fromFile) {
    ctx.body = configKeyView(fromFile, runtime.config);
    return;
  }
  await services.keys.sync();
  const k = services.keys.get(id);
  if (!k) throw notFound(id);
  ctx.body = viewOf(ctx, k);
}

/** PATCH, disable and enable: one change to a runtime key. */
function change(parse: (body: unknown, ctx: GatewayContext) => (k: StoredKey) => StoredKey): GatewayMiddleware {
  return async (ctx) => {
    checkQuery(ctx.query, []);
    const id = writableId(ctx);
    const apply = parse(ctx.request.body, ctx);
    const k = await changeKey(stateOf(ctx).services.keys, id, apply);
    if (!k) throw notFound(id);
    ctx.body = viewOf(ctx, k);
  };
}

async function rotate(ctx: GatewayContext): Promise<void> {
  checkQuery(ctx.query, []);
  const id = writableId(ctx);
  const grace = parseRotation(ctx.request.body);
  const made = await rotateKey(stateOf(ctx).services.keys, id, grace);
  if (!made) throw notFound(id);
  ctx.set('cache-control', 'no-store');
  ctx.body = { key: viewOf(ctx, made.key), secret: made.secret };
}

async function remove(ctx: GatewayContext): Promise<void> {
  checkQuery(ctx.query, []);
  const id = writableId(ctx);
  if (!(await deleteKey(stateOf(ctx).services.keys, id))) throw notFound(id);
  ctx.status = 204;
}

const disabled = (value: boolean) => (body: unknown) => {
  parseEmpty(body);
  return (k: StoredKey): StoredKey => ({ ...k, disabled: value });
};

export function registerKeyRoutes(router: GatewayRouter): void {
  router.get('/admin/keys', list);
  router.post('/admin/keys', requireJson, jsonBody, create);
  router.get('/admin/keys/:id', read);
  router.patch(
    '/admin/keys/:id',
    requireJson,
    jsonBody,
    change((body, ctx) => {
      const c = parseKeyChange(body);
      checkBudgetEnforceable(ctx, c.budget);
      return applyChange(c);
    }),
  );
  router.delete('/admin/keys/:id', remove);
  router.post('/admin/keys/:id/disable', requireJson, jsonBody, change(disabled(true)));
  router.post('/admin/keys/:id/enable', requireJson, jsonBody, change(disabled(false)));
  router.post('/admin/keys/:id/rotate', requireJson, jsonBody, rotate);
}
