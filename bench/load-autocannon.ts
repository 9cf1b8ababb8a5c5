// Non-streaming load with autocannon (an established generator, closed loop: each connection
// sends its next request when the previous answer is complete). autocannon's own latency
// histogram counts whole milliseconds, too coarse for overheads of a fraction of one, so each
// response time it reports (a float, from process.hrtime) is kept here at full resolution.
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { ClientRequest } from './wire-requests.ts';
import { Samples } from './stats.ts';

type AutocannonOptions = {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
  pipelining: number;
  timeout: number;
  overallRate?: number;
};
type AutocannonResult = { duration: number; errors: number; timeouts: number; non2xx: number };
type Tracker = EventEmitter & PromiseLike<AutocannonResult>;

// autocannon ships no types; its call signature is narrowed to what is used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: AutocannonOptions) => Tracker;

export type LoadResult = { rps: number; p50: number; p99: number; count: number; errors: number };

/** `rate`: an offered rate (requests per second over all connections) instead of as fast as answers come. */
export async function runAutocannon(
  baseUrl: string,
  req: ClientRequest,
  connections: number,
  durationS: number,
  rate?: number,
): Promise<LoadResult> {
  const latencies = new Samples();
  let errors = 0;
  const tracker = autocannon({
    url: baseUrl + req.path,
    method: 'POST',
    headers: req.headers,
    body: req.body,
    connections,
    duration: durationS,
    pipelining: 1,
    timeout: 10,
    ...(rate ? { overallRate: rate } : {}),
  });
  tracker.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else errors++;
  });
  const result = await tracker;
  const [p50, p99] = latencies.percentiles(50, 99);
  return {
    rps: latencies.count / result.duration,
    p50,
    p99,
    count: latencies.count,
    errors: errors + result.errors + result.timeouts,
  };
}
