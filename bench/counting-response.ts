// What the in-process stream benches (pipe-stream-micro.ts, pipe-stream-alloc.ts,
// stream-differential.ts) take of a checkout: a stand-in for the client's response (what
// pipe-stream and the SSE writer use of one), counting the bytes written or keeping them, and the
// stream path's modules of one tree.
import { resolve } from 'node:path';
import type { WireFormat } from './wire-requests.ts';

/** Bytes a response got, what it got (each write marked with `|`, when `keep`), and the response itself. */
export function countingResponse(keep = false): { res: unknown; bytes: () => number; text: () => string } {
  let bytes = 0;
  let out = '';
  let ended = false;
  const res = {
    socket: null,
    destroyed: false,
    get writableEnded() {
      return ended;
    },
    writeHead: () => res,
    flushHeaders: () => {},
    write: (s: string) => {
      // Counted as Node's chunked `res.write` counts a string: its UTF-8 length, which flattens a
      // cons string (a copy of the whole chunk: what a writer builds by concatenation costs here too).
      bytes += Buffer.byteLength(s);
      if (keep) out += `|${s}`;
      return true;
    },
    end: () => (ended = true),
    on: () => res,
    off: () => res,
    once: () => res,
  };
  return { res, bytes: () => bytes, text: () => out };
}

export type Codec = {
  client: { decodeRequest(body: unknown, ctx: unknown): unknown; createStreamEncoder(req: unknown): unknown };
  upstream: { codec: { createStreamDecoder(): unknown } };
};

/** A checkout's module at `path` (its own exports, untyped: trees differ). */
export const moduleOf = (dir: string, path: string) => import(resolve(dir, path));

/** The four wire formats' codecs of the checkout at `dir`. */
export async function codecsOf(dir: string): Promise<Record<WireFormat, Codec>> {
  return {
    messages: (await moduleOf(dir, 'adapters/anthropic-messages/index.ts')).anthropicMessages,
    chat: (await moduleOf(dir, 'adapters/openai-chat/index.ts')).openaiChat,
    gemini: (await moduleOf(dir, 'adapters/gemini/index.ts')).gemini,
    responses: (await moduleOf(dir, 'adapters/openai-responses/index.ts')).openaiResponses,
  };
}
