// Seeds of the fuzz suite: the golden fixtures of each format (test/fixtures/<format>/).
import { readdirSync, readFileSync } from 'node:fs';
import type { Frame } from './mutate-frames.ts';

const dir = (format: string): URL => new URL(`../fixtures/${format}/`, import.meta.url);

/** Every `<case><suffix>` JSON file of a format, parsed. */
export function fixtureJsons(format: string, suffix: string): unknown[] {
  return readdirSync(dir(format))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, dir(format)), 'utf8')) as unknown);
}

/**
 * Every recorded stream of a format, one `data:` payload a line. `named` frames carry the payload's
 * `type` as the event name, as Messages and Responses upstreams send it.
 */
export function fixtureStreams(format: string, named: boolean): Frame[][] {
  return readdirSync(dir(format))
    .filter((f) => f.endsWith('.chunks.jsonl'))
    .sort()
    .map((f) =>
      readFileSync(new URL(f, dir(format)), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((data) => (named ? { event: String((JSON.parse(data) as { type: unknown }).type), data } : { data })),
    );
}

/** The `response` objects a recorded Responses stream ends with (response.completed / .failed). */
export function finalResponses(format: string): unknown[] {
  return fixtureStreams(format, false).flatMap((frames) =>
    frames.flatMap((f) => {
      const v = JSON.parse(f.data) as { type?: unknown; response?: unknown };
      return v.type === 'response.completed' || v.type === 'response.failed' || v.type === 'response.incomplete'
        ? [v.response]
        : [];
    }),
  );
}
