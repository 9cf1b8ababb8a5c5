import type Koa from 'koa';
import { PassThrough, pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip, createZstdDecompress } from 'node:zlib';
import { koaBody } from 'koa-body';
import getRawBody from 'raw-body';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { checkJsonShape, type JsonShapeLimits } from './json-shape.ts';
import { isJsonRequest } from './is-json-request.ts';
import { nextTurn } from './loop-turns.ts';
import { textOf } from '../upstream/upstream-request.ts';

/** Bodies from this size (characters) take a turn before they are parsed: a few milliseconds of work each. */
const largeBody = 64 * 1024;

/**
 * JSON body parsing with the configured size limit (413 past it) and shape limits (depth, items
 * per array, keys per object: 400 naming the field past them, checked on the text before it is
 * parsed, src/infra/http/json-shape.ts). Bodies of other types go to koa-body as before (its
 * parsers are built once per limit value, not per request).
 */
const parsers = new Map<number, Koa.Middleware>();
/** What the parser reads of a request's state: the limits of the runtime in force (src/services/runtime/request-state.ts). */
type LimitsState = { runtime: { config: Pick<GatewayConfig, 'limits'> } };

/** koa-body's JSON types: what it parsed as JSON before, this reader parses now. */
const jsonTypes = [
  'application/json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/csp-report',
  'application/scim+json',
];

export const jsonBody: Koa.Middleware = (ctx, next) => {
  const limits = (ctx.state as LimitsState).runtime.config.limits;
  if (isJsonRequest(ctx, jsonTypes)) {
    return readJson(ctx, limits).then((body) => {
      ctx.request.body = body as typeof ctx.request.body;
      return next();
    });
  }
  let parse = parsers.get(limits.max_body_bytes);
  if (!parse) {
    parse = koaBody({
      json: false,
      text: false,
      urlencoded: false,
      multipart: false,
    }) as unknown as Koa.Middleware;
    parsers.set(limits.max_body_bytes, parse);
  }
  return parse(ctx, next);
};

/**
 * The decoders of each content-coding (RFC 9110 8.4.1: the names are case-insensitive, so
 * `GZIP` is gzip). `deflate` and `gzip` share zlib's Unzip, which reads either header, as the body
 * parser's own decompressor (inflation) did.
 */
const decoders: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
  gzip: createUnzip,
  'x-gzip': createUnzip,
  deflate: createUnzip,
  br: createBrotliDecompress,
  zstd: createZstdDecompress,
};

/** The shape check's options, made once per limits of a runtime (the check does not change them). */
const shapeLimits = new WeakMap<GatewayConfig['limits'], JsonShapeLimits>();
function shapeOf(limits: GatewayConfig['limits']): JsonShapeLimits {
  let o = shapeLimits.get(limits);
  if (o === undefined) {
    o = { maxDepth: limits.max_json_depth, maxItems: limits.max_json_items, maxKeys: limits.max_json_keys };
    shapeLimits.set(limits, o);
  }
  return o;
}

/**
 * A JSON body, decoded when compressed: the size limit is counted on the decoded bytes (decoding
 * stops there, so a small bomb cannot fill memory), data that does not decode is a 400 naming
 * `body` (it was a 500), an unknown coding a 415, the text's shape is checked before JSON.parse,
 * and only an object or an array is a body (co-body's strict rule, which the parser kept before).
 */
async function readJson(ctx: Koa.Context, limits: GatewayConfig['limits']): Promise<unknown> {
  const coding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  let source: Readable = ctx.req;
  let decodeFailed: Error | undefined;
  if (coding !== 'identity') {
    const decoder = decoders[coding];
    if (!decoder) {
      ctx.req.resume();
      throw new GatewayError(
        'invalid-request',
        `content-encoding: '${coding.slice(0, 32).replace(/[^\x20-\x7e]/g, '?')}' is not supported (gzip, deflate, br, zstd or identity)`,
        { status: 415, param: 'content-encoding' },
      );
    }
    const z = decoder() as unknown as Readable;
    // pipeline, not pipe: a client that goes away mid-upload ends the decoded stream too. The
    // decoder's own error (not gzip at all) is kept to answer 400 rather than a parser 500.
    pipeline(ctx.req, z as unknown as NodeJS.WritableStream, (err) => {
      if (err) decodeFailed = err;
    });
    source = z;
  }
  // raw-body (co-body's own reader, called without co-body's option copy, inflation and streaming
  // UTF-8 decoder: ~0.3 KB a request less) keeps the limit, the declared-length check and the abort
  // handling the parser had; the bytes become text once, a leading BOM dropped (textOf). An explicit
  // `identity` label in another case (which co-body's decompressor refused) is read through a plain
  // pass-through, as before.
  if (source === ctx.req && ctx.req.headers['content-encoding'] !== undefined) {
    const plain = new PassThrough();
    pipeline(ctx.req, plain, () => {});
    source = plain;
  }
  // The declared length is checked on a body read as sent (co-body's rule: `~~` of the header).
  const declared = source === ctx.req ? ctx.req.headers['content-length'] : undefined;
  let text: string;
  try {
    const bytes = await getRawBody(source, {
      length: declared ? ~~declared : undefined,
      limit: limits.max_body_bytes,
    });
    text = textOf([bytes], bytes.length);
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && !(decodeFailed && status >= 500)) throw err;
    ctx.req.resume();
    throw new GatewayError('invalid-request', `body: not valid ${coding} data (content-encoding: ${coding})`, {
      param: 'body',
    });
  }
  // A large body waits for its turn: bodies that arrived in the same poll phase are then parsed one
  // per turn of the loop, with timers and other I/O between them (src/infra/http/loop-turns.ts).
  if (text.length >= largeBody) await nextTurn();
  // An empty body is an empty object, as the strict JSON parser had it.
  if (text.trim() === '') return {};
  if (!/^[\x20\x09\x0a\x0d]*[[{]/.test(text))
    throw new GatewayError('invalid-request', 'request body is not valid JSON (an object or an array)');
  checkJsonShape(text, shapeOf(limits));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GatewayError('invalid-request', 'request body is not valid JSON');
  }
}
