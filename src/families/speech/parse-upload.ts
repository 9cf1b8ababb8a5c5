// multipart/form-data uploads for the `openai-audio` format: spooled to disk by koa-body's formidable (never held
// whole in memory), bounded by `limits.max_upload_bytes` (413 past it), removed after the request.
import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { sniffBytes, type FormInput } from '../../../adapters/openai-audio/index.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

export type Upload = { form: FormInput; cleanup: () => Promise<void> };

type SpooledFile = { filepath: string; originalFilename?: string | null; mimetype?: string | null; size: number };

const parsers = new Map<number, Middleware>();
let spoolDir: string | undefined;

function parserFor(limit: number): Middleware {
  let parse = parsers.get(limit);
  if (parse) return parse;
  spoolDir ??= join(tmpdir(), 'polygate-uploads');
  mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir: spoolDir,
      maxFileSize: limit,
      maxTotalFileSize: limit,
      maxFieldsSize: Math.min(limit, 1024 * 1024),
      maxFields: 64,
      maxFiles: 4,
      // Empty files get polygate's own 400 naming `file`, not formidable's message.
      allowEmptyFiles: true,
      minFileSize: 0,
    },
  }) as unknown as Middleware;
  parsers.set(limit, parse);
  return parse;
}

export async function parseUpload(ctx: GatewayContext): Promise<Upload> {
  const limit = ctx.state.runtime.config.limits.max_upload_bytes;
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(ctx, limit);
  if (!ctx.is('multipart/form-data')) {
    throw new GatewayError('invalid-request', 'content-type must be multipart/form-data', {
      status: 415,
      param: 'content-type',
    });
  }
  try {
    await parserFor(limit)(ctx, async () => {});
  } catch (e) {
    const httpCode = (e as { httpCode?: unknown }).httpCode;
    if (httpCode === 413) throw tooLarge(ctx, limit);
    if ((e as { code?: unknown }).code === 1015)
      throw new GatewayError('invalid-request', 'file: too many files in one request', { param: 'file' });
    if (typeof httpCode === 'number' && httpCode < 500)
      throw new GatewayError('invalid-request', 'the multipart/form-data body is malformed');
    throw e;
  }
  const request = ctx.request as unknown as {
    body?: Record<string, unknown>;
    files?: Record<string, SpooledFile | SpooledFile[]>;
  };
  const spooled = Object.entries(request.files ?? {}).flatMap(([name, f]) =>
    (Array.isArray(f) ? f : [f]).map((file) => [name, file] as const),
  );
  const cleanup = async (): Promise<void> => {
    await Promise.all(spooled.map(([, f]) => rm(f.filepath, { force: true })));
  };
  try {
    const fields: Array<[string, string]> = Object.entries(request.body ?? {}).flatMap(([name, v]) =>
      (Array.isArray(v) ? v : [v]).map((x) => [name, String(x)] as [string, string]),
    );
    const files: FormInput['files'] = await Promise.all(
      spooled.map(
        async ([name, f]) =>
          [
            name,
            {
              path: f.filepath,
              filename: f.originalFilename ?? '',
              mediaType: f.mimetype ?? 'application/octet-stream',
              size: f.size,
              head: await readHead(f.filepath),
            },
          ] as [string, FormInput['files'][number][1]],
      ),
    );
    return { form: { fields, files }, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * The 413, and what happens to the rest of the upload. Clients (the openai SDK's fetch among
 * them) keep writing until the body is sent and fail with EPIPE if the socket closes first, never
 * reading the answer. So the rest is read and discarded, up to `drainFactor` times the limit;
 * past that, or when the declared length is already beyond it, the connection is closed.
 */
const drainFactor = 4;

function tooLarge(ctx: Context, limit: number): GatewayError {
  const cap = drainFactor * limit;
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) ctx.set('connection', 'close');
  else {
    let seen = 0;
    ctx.req.on('data', (b: Buffer) => {
      seen += b.length;
      if (seen > cap) ctx.req.destroy();
    });
    ctx.req.resume();
  }
  return new GatewayError('payload-too-large', `the upload is larger than this gateway accepts (${limit} bytes)`);
}

async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(sniffBytes);
    const { bytesRead } = await fh.read(buf, 0, sniffBytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
