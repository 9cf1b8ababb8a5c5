// Pieces of the multi-instance tests: a gateway config on a shared Redis (callbacks are received by
// test/tune/hook-receiver.ts).
import type { TuneUpstream } from '../emulators/tune-upstream.ts';
import { upstreamConfig } from '../tune/tune-helpers.ts';

/** Two (or more) instances started with this share every stateful thing through the Redis at `url`. */
export function sharedConfig(
  redisUrl: string,
  up: TuneUpstream,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { tune, ...rest } = extra as { tune?: Record<string, unknown> };
  return upstreamConfig(up, {
    storage: { driver: 'redis', url: redisUrl },
    outbound: { allow_private_addresses: true },
    tune: { task_lease_ms: 1500, ...tune },
    ...rest,
  });
}
