import type Koa from 'koa';
import { createZstdDecompress } from 'node:zlib';
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
    parse = koaBody({ json: true, text: false, urlencoded: false, multipart: false, jsonStrict: true, jsonLimit: limits.max_body_bytes }) as unknown as Koa.Middleware;
    parsers.set(limits.max_body_bytes, parse);
  }
  const checked = (): Promise<unknown> => {
    assertJsonDepth(ctx.request.body, limits.max_json_depth);
    return next();
  };
  if (ctx.get('content-encoding').trim().toLowerCase() === 'zstd' && ctx.is('json')) {
    return readZstdJson(ctx, limits.max_body_bytes).then((body) => {
      ctx.request.body = body as typeof ctx.request.body;
      return checked();
    });
  }
  return parse(ctx, checked);
};

/**
 * A zstd-compressed JSON body (`Content-Encoding: zstd`, RFC 8878), which the body parser does not
 * decode (gzip, deflate and br only) and Node's zlib does. The same rules as the parser's: the size
 * limit applies to the decoded body (decoding stops there, so a small bomb cannot fill memory), and
 * the body must be a JSON object or array; its errors are the parser's, answered the same way
 * (src/infra/errors/to-gateway-error.ts).
 */
function readZstdJson(ctx: Koa.Context, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const z = createZstdDecompress();
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: Error): void => {
      ctx.req.unpipe(z);
      z.destroy();
      // The rest of the upload is read and thrown away, so the answer is not cut by a reset.
      ctx.req.resume();
      reject(err);
    };
    z.on('data', (b: Buffer) => {
      size += b.length;
      if (size > limit) fail(Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large' }));
      else chunks.push(b);
    });
    z.on('error', () => fail(new GatewayError('invalid-request', 'body: not valid zstd data (content-encoding: zstd)', { param: 'body' })));
    z.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const first = /^[\s]*(.)/.exec(text)?.[1];
      try {
        if (first !== '{' && first !== '[') throw new Error('not an object or array');
        resolve(JSON.parse(text));
      } catch {
        reject(Object.assign(new Error('invalid JSON'), { status: 400, type: 'entity.parse.failed' }));
      }
    });
    // A client that goes away mid-upload: the parser's own 400 (nobody reads the answer).
    ctx.req.on('error', () => fail(Object.assign(new Error('request aborted'), { status: 400, type: 'request.aborted' })));
    ctx.req.pipe(z);
  });
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
      throw new GatewayError('invalid-request', `body: JSON nested deeper than ${maxDepth} levels (limits.max_json_depth)`, { param: 'body' });
    }
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push({ v: c, d: d + 1 });
  }
}
