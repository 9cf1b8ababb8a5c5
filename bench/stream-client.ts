// One streaming request through undici's dispatcher callbacks: no stream objects, no async
// iteration, no copies, so a thousand concurrent streams cost the load core little and the
// measured time is the server's. Reports time to the first body byte, to the end, and whether the
// format's closing frame arrived.
import type { Dispatcher } from 'undici';
import type { ClientRequest } from './wire-requests.ts';

export type StreamOutcome = { status: number; ttfbMs: number; totalMs: number; whole: boolean; error?: Error };

export function streamOnce(
  pool: Dispatcher,
  req: ClientRequest,
  endMarker: string,
  opts: { signal?: AbortSignal; onChunk?: (atMs: number) => void } = {},
): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let status = 0;
    let ttfb = -1;
    // The closing frame may straddle two reads: keep the last two.
    let prev: Buffer | undefined;
    let last: Buffer | undefined;
    const done = (error?: Error): void => {
      const tail = last ? (prev ? Buffer.concat([prev.subarray(-256), last]) : last) : Buffer.alloc(0);
      resolve({
        status,
        ttfbMs: ttfb,
        totalMs: performance.now() - t0,
        whole: status === 200 && tail.includes(endMarker),
        error,
      });
    };
    pool.dispatch(
      { path: req.path, method: 'POST', headers: req.headers, body: req.body },
      {
        onRequestStart: (controller) => {
          if (opts.signal?.aborted) controller.abort(opts.signal.reason);
          else opts.signal?.addEventListener('abort', () => controller.abort(opts.signal?.reason), { once: true });
        },
        onResponseStart: (_c, statusCode) => void (status = statusCode),
        onResponseData: (_c, chunk) => {
          const now = performance.now();
          if (ttfb < 0) ttfb = now - t0;
          opts.onChunk?.(now);
          prev = last;
          last = chunk;
        },
        onResponseEnd: () => done(),
        onResponseError: (_c, err) => done(err),
      },
    );
  });
}
