// Streaming load: `concurrency` clients, each opening its next stream when the previous one has
// ended, over one undici pool. Measures time to the first body byte (what a user waits before the
// first token) and to the end of the stream; a stream that ends without its format's closing
// frame counts as incomplete.
import { Pool } from 'undici';
import type { ClientRequest } from './wire-requests.ts';
import { Samples } from './stats.ts';

export type StreamLoadResult = {
  /** Whole streams completed per second. */
  sps: number;
  ttfbP50: number;
  ttfbP99: number;
  totalP50: number;
  totalP99: number;
  count: number;
  errors: number;
  incomplete: number;
};

export async function runStreams(baseUrl: string, req: ClientRequest, concurrency: number, durationS: number, endMarker: string): Promise<StreamLoadResult> {
  const pool = new Pool(baseUrl, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const ttfb = new Samples();
  const total = new Samples();
  let errors = 0;
  let incomplete = 0;
  const started = performance.now();
  const deadline = started + durationS * 1000;

  const one = async (): Promise<void> => {
    const t0 = performance.now();
    const res = await pool.request({ path: req.path, method: 'POST', headers: req.headers, body: req.body });
    if (res.statusCode !== 200) {
      errors++;
      await res.body.dump();
      return;
    }
    let first = -1;
    let prev: Buffer | undefined;
    let last: Buffer | undefined;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (first < 0) first = performance.now() - t0;
      prev = last;
      last = chunk;
    }
    const t1 = performance.now() - t0;
    // The closing frame may straddle the last two reads.
    const tail = Buffer.concat(prev ? [prev.subarray(-256), last ?? Buffer.alloc(0)] : [last ?? Buffer.alloc(0)]);
    if (first < 0 || !tail.includes(endMarker)) {
      incomplete++;
      return;
    }
    ttfb.push(first);
    total.push(t1);
  };

  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      try {
        await one();
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const [ttfbP50, ttfbP99] = ttfb.percentiles(50, 99);
  const [totalP50, totalP99] = total.percentiles(50, 99);
  return { sps: total.count / elapsed, ttfbP50, ttfbP99, totalP50, totalP99, count: total.count, errors, incomplete };
}
