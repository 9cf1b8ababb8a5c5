import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../../../adapters/shared/chat-adapter.ts';

/**
 * The one SSE writer for every family. Frames are serialized here and only here, so framing
 * (`event:` line or not, blank-line terminator, no buffering) is identical across formats.
 */
export class SseWriter {
  readonly #res: ServerResponse;
  #open = false;
  /** A write (or `sendHeaders`) has sent the head. */
  #headSent = false;
  /** Frames added and not yet written, already serialized: one string per write, no frame list. */
  #pending = '';
  constructor(res: ServerResponse) {
    this.#res = res;
  }

  get closed(): boolean {
    return this.#res.destroyed || this.#res.writableEnded;
  }

  /**
   * Sets the status and headers; they go out with the first frames, in the same write (Node sends
   * a response's head with its first body chunk), or with `sendHeaders()` when there are none yet.
   */
  open(status: number, headers: Record<string, string>): void {
    this.#res.writeHead(status, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // Tells nginx-style proxies in front of polygate not to buffer the stream.
      'x-accel-buffering': 'no',
      ...headers,
    });
    this.#open = true;
  }

  /** Sends the headers now if no frame has carried them yet: a stream about to wait shows its status at once. */
  sendHeaders(): void {
    // Not `res.headersSent`: writeHead sets it before anything is sent.
    if (this.#headSent || this.closed) return;
    this.#headSent = true;
    this.#res.flushHeaders();
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Serializes frames to go out with the next `flush()`: the frames of one upstream read make one write. */
  add(frames: SseFrame[]): void {
    for (let i = 0; i < frames.length; i++) this.#pending += frameText(frames[i]);
  }

  /**
   * Writes what `add` gathered as one chunk, without a promise: false when the socket is full,
   * and the caller must await `drained()` before writing more (backpressure).
   */
  flush(): boolean {
    const text = this.#pending;
    if (text === '') return true;
    this.#pending = '';
    if (this.closed) return true;
    this.#headSent = true;
    return this.#res.write(text);
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
  for (let i = 0; i < frames.length; i++) text += frameText(frames[i]);
  return text;
}

const frameText = (f: SseFrame): string =>
  f.event === undefined ? `data: ${f.data}\n\n` : `${headOf(f.event)}${f.data}\n\n`;

/**
 * `event: NAME\ndata: ` by event name, made once: a frame is then its head, its data and its end
 * (issue #28). The names are the encoders' own (a few dozen); past the bound a head is made per frame.
 */
const heads = new Map<string, string>();
function headOf(event: string): string {
  let head = heads.get(event);
  if (head === undefined) {
    head = ['event: ', event, '\ndata: '].join('');
    if (heads.size < 256) heads.set(event, head);
  }
  return head;
}
