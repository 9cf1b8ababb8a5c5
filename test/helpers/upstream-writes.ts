// What the answer-bound tests' emulated upstreams do to a gateway's bound (test/resilience/*answer-bound*):
// write far past it, and tell whether the client had bytes before the upstream finished.
import type { ServerResponse } from 'node:http';

/**
 * Writes `total` bytes of `char` as fast as the reader takes them, stopping once the connection is
 * closed (what the gateway does past its bound). Each wait takes its listeners off again: a
 * `close` listener left per drain warned of a leak (MaxListenersExceededWarning).
 */
export async function writeUpTo(res: ServerResponse, char: string, total: number): Promise<void> {
  const piece = Buffer.from(char.repeat(8_192));
  for (let n = 0; n < total && !res.destroyed; n += piece.length)
    if (!res.write(piece))
      await new Promise<void>((ok) => {
        const go = (): void => {
          res.off('drain', go).off('close', go);
          ok();
        };
        res.once('drain', go).once('close', go);
      });
}

/**
 * Reads a client's answer whole, noting whether `upstreamDone()` was already true when its first
 * bytes came (an answer held whole has none before the end), and calling `firstBytes` then.
 */
export async function readNotingFirstBytes(
  body: ReadableStream<Uint8Array>,
  upstreamDone: () => boolean,
  firstBytes: () => void,
): Promise<{ bytes: Buffer; doneAtFirstBytes: boolean | undefined }> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let doneAtFirstBytes: boolean | undefined;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    if (doneAtFirstBytes === undefined) {
      doneAtFirstBytes = upstreamDone();
      firstBytes();
    }
    parts.push(r.value);
  }
  return { bytes: Buffer.concat(parts), doneAtFirstBytes };
}
