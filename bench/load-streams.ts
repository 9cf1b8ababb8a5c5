// Streaming load: `concurrency` clients, each opening its next stream when the previous one has
// ended, each on its own keep-alive connection (stream-client.ts). Measures time to the first body byte (what a user waits before the
// first token) and to the end of the stream; a stream that ends without its format's closing
// frame counts as incomplete.
import { Client } from 'undici';
import type { ClientRequest } from './wire-requests.ts';
import { Samples } from './stats.ts';
import { streamOnce } from './stream-client.ts';

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

export async function runStreams(
  baseUrl: string,
  req: ClientRequest,
  concurrency: number,
  durationS: number,
  endMarker: string,
): Promise<StreamLoadResult> {
  const ttfb = new Samples();
  const total = new Samples();
  let errors = 0;
  let incomplete = 0;
  const started = performance.now();
  const deadline = started + durationS * 1000;

  const one = async (client: Client): Promise<void> => {
    const r = await streamOnce(client, req, endMarker);
    if (r.status !== 200 || r.error) errors++;
    else if (!r.whole || r.ttfbMs < 0) incomplete++;
    else {
      ttfb.push(r.ttfbMs);
      total.push(r.totalMs);
    }
  };

  // Each client keeps its own keep-alive connection, so `concurrency` is exactly the number of
  // connections and streams in flight.
  const worker = async (): Promise<void> => {
    const client = new Client(baseUrl, { pipelining: 1, keepAliveTimeout: 60_000 });
    while (performance.now() < deadline) {
      try {
        await one(client);
      } catch {
        errors++;
      }
    }
    await client.close();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const [ttfbP50, ttfbP99] = ttfb.percentiles(50, 99);
  const [totalP50, totalP99] = total.percentiles(50, 99);
  return { sps: total.count / elapsed, ttfbP50, ttfbP99, totalP50, totalP99, count: total.count, errors, incomplete };
}
