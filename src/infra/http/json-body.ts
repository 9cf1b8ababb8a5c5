import type Koa from 'koa';
import { pipeline } from 'node:stream';
import { createZstdDecompress } from 'node:zlib';
import coBody from 'co-body';
import { koaBody } from 'koa-body';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';

/**
 * JSON body parsing with the configured size limit (413 past it) and nesting limit (400 past
 * it). Parsers are built once per limit value, not per request.
 */
const parsers = new Map<number, Koa.Middleware>();
/** What the parser reads of a request's state: the limits of the runtime in force (src/services/runtime/request-state.ts). */
type LimitsState = { runtime: { config: Pick<GatewayConfig, 'limits'> } };

export const jsonBody: Koa.Middleware = (ctx, next) => {
  const limits = (ctx.state as LimitsState).runtime.config.limits;
  let parse = parsers.get(limits.max_body_bytes);
  if (!parse) {
    parse = koaBody({
      json: true,
      text: false,
      urlencoded: false,
      multipart: false,
      jsonStrict: true,
      jsonLimit: limits.max_body_bytes,
    }) as unknown as Koa.Middleware;
    parsers.set(limits.max_body_bytes, parse);
  }
  const checked = (): Promise<unknown> => {
    assertJsonDepth(ctx.request.body, limits.max_json_depth);
    return next();
  };
  const encoding = ctx.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() === 'zstd' && ctx.is('json')) {
    return readZstdJson(ctx, limits.max_body_bytes).then((body) => {
      ctx.request.body = body as typeof ctx.request.body;
      return checked();
    });
  }
  return parse(ctx, checked);
};

/**
 * A zstd-compressed JSON body (`Content-Encoding: zstd`, RFC 8878): the body parser's own JSON
 * reader (co-body, which koa-body uses) handed the decompressed stream, so the size limit (counted
 * on the decoded bytes: decoding stops there, a small bomb cannot fill memory), the object-or-array
 * rule and the refusal of `__proto__` keys are the same as for every other body. Its decompressor
 * (inflation) knows gzip, deflate and br; Node's zlib decodes zstd.
 */
async function readZstdJson(ctx: Koa.Context, limit: number): Promise<unknown> {
  const z = createZstdDecompress();
  // pipeline, not pipe: a client that goes away mid-upload ends the decoded stream too.
  pipeline(ctx.req, z, () => {});
  const decoded = Object.assign(z, { headers: { 'content-type': ctx.get('content-type') } });
  try {
    return await coBody.json(decoded as unknown as Koa.Context['req'], { limit, strict: true });
  } catch (err) {
    // The parser's errors carry their status; the decompressor's (not zstd at all) do not.
    if (typeof (err as { status?: unknown }).status === 'number') throw err;
    ctx.req.resume();
    throw new GatewayError('invalid-request', 'body: not valid zstd data (content-encoding: zstd)', { param: 'body' });
  }
}

/**
 * V8's JSON.parse is iterative and takes any nesting, but every recursive walk after it (adapters,
 * schema converters, JSON.stringify) would overflow the stack on a body nested thousands deep, and
 * that 500 would look like a gateway fault. Refusing at parse time bounds the recursion depth of
 * all code that sees client data. Iterative, and it stops descending at the limit, so it costs one
 * pass over the containers of the body at most.
 */
export function assertJsonDepth(value: unknown, maxDepth: number): void {
  if (typeof value !== 'object' || value === null) return;
  const stack: { v: object; d: number }[] = [{ v: value, d: 1 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (d > maxDepth) {
      throw new GatewayError(
        'invalid-request',
        `body: JSON nested deeper than ${maxDepth} levels (limits.max_json_depth)`,
        { param: 'body' },
      );
    }
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push({ v: c, d: d + 1 });
  }
}
