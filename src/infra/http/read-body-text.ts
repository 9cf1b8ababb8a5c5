// A request body's text, read for the JSON body parser (src/infra/http/json-body.ts) with its size
// limit. It was co-body's `text` (raw-body under it); read here, a body costs one Promise, one
// context for the stream's listeners and the text itself, where co-body's copy of its options, its
// async wrapper, raw-body's per-request closures and argument arrays and its chunk-by-chunk UTF-8
// decoder made ~1 KB more a request (bench/RESULTS.md, "Session 13"). What a client sees is the same:
// the same errors (their status, type and message, which src/infra/errors/to-gateway-error.ts
// reads) for the same bodies.
import type { Readable } from 'node:stream';
import { textOf } from '../upstream/upstream-request.ts';

/** An error of the body reader: the status and type toGatewayError answers by. */
export class BodyReadError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, message: string, type: string) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

/**
 * The whole body as UTF-8 text (a leading BOM dropped), at most `limit` bytes. `length`: the
 * declared length (`content-length` of a body sent as is), checked before reading (413 past the
 * limit, the stream left paused) and against what arrived (400). A client that aborts is a 400; an
 * error of the stream (a decoder's) rejects with that error. Listeners are removed once settled,
 * and the stream is paused after an error, as raw-body did.
 */
export function readBodyText(stream: Readable, length: number | undefined, limit: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const refuse = (err: BodyReadError): void => {
      stream.unpipe();
      stream.pause();
      reject(err);
    };
    if (length !== undefined && length > limit)
      return refuse(new BodyReadError(413, 'request entity too large', 'entity.too.large'));
    if (stream.readableEncoding !== null)
      return refuse(new BodyReadError(500, 'stream encoding should not be set', 'stream.encoding.set'));
    if (!stream.readable) return refuse(new BodyReadError(500, 'stream is not readable', 'stream.not.readable'));
    // Most bodies arrive in one chunk: a list only from the second.
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let received = 0;
    let complete = false;
    const cleanup = (): void => {
      stream.removeListener('aborted', onAborted);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onEnd);
      stream.removeListener('close', cleanup);
    };
    const fail = (err: Error): void => {
      complete = true;
      cleanup();
      stream.unpipe();
      stream.pause();
      reject(err);
    };
    const onAborted = (): void => {
      if (!complete) fail(new BodyReadError(400, 'request aborted', 'request.aborted'));
    };
    const onData = (chunk: Buffer): void => {
      if (complete) return;
      received += chunk.length;
      if (received > limit) fail(new BodyReadError(413, 'request entity too large', 'entity.too.large'));
      else if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    };
    const onEnd = (err?: Error): void => {
      if (complete) return;
      if (err) return fail(err);
      if (length !== undefined && received !== length)
        return fail(new BodyReadError(400, 'request size did not match content length', 'request.size.invalid'));
      complete = true;
      cleanup();
      resolve(textOf(more ?? (first === undefined ? [] : [first]), received));
    };
    stream.on('aborted', onAborted);
    stream.on('close', cleanup);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
  });
}
