import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../../../adapters/shared/chat-adapter.ts';

/**
 * The one SSE writer for every family. Frames are serialized here and only here, so framing
 * (`event:` line or not, blank-line terminator, no buffering) is identical across formats.
 */
export class SseWriter {
  readonly #res: ServerResponse;
  #open = false;
  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get closed(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  open(status: number, headers: Record<string, string>): void {
    // Node corks the socket for the rest of the tick on a body write, so all the frames decoded
    // from one upstream read already leave together; flushHeaders alone does not, and would send
    // the headers in a packet of their own. Corking here lets them travel with the first frames
    // (written in this same tick), while a first event that encodes to nothing still sends them.
    const socket = this.#res.socket;
    if (socket && !socket.writableCorked) {
      socket.cork();
      process.nextTick(() => socket.uncork());
    }
    this.#res.writeHead(status, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // Tells nginx-style proxies in front of polygate not to buffer the stream.
      'x-accel-buffering': 'no',
      ...headers,
    });
    this.#res.flushHeaders();
    this.#open = true;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Writes frames as one chunk; resolves when the socket can take more (backpressure). */
  async write(frames: SseFrame[]): Promise<void> {
    if (!this.writeNow(frames)) await this.drained();
  }

  /**
   * Writes frames as one chunk, without a promise: false when the socket is full, and the caller
   * must await `drained()` before writing more (backpressure).
   */
  writeNow(frames: SseFrame[]): boolean {
    if (frames.length === 0 || this.closed) return true;
    return this.#res.write(serializeFrames(frames));
  }

  /** Resolves when the socket can take more, or the client is gone. */
  drained(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.#res.off('drain', done);
        this.#res.off('close', done);
        resolve();
      };
      this.#res.on('drain', done);
      this.#res.on('close', done);
    });
  }

  end(): void {
    if (!this.closed) this.#res.end();
  }
}

/** SSE framing, the one place it is written: an `event:` line only for formats that name events. */
export function serializeFrames(frames: SseFrame[]): string {
  let text = '';
  for (const f of frames)
    text += f.event === undefined ? `data: ${f.data}\n\n` : `event: ${f.event}\ndata: ${f.data}\n\n`;
  return text;
}
