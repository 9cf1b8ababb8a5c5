// Seeds of the fuzz suite: the golden fixtures of each format (test/fixtures/<format>/).
import { readdirSync } from 'node:fs';
import { fixtureFiles } from '../helpers/fixture-files.ts';
import type { Frame } from './mutate-frames.ts';

/** The names of a format's fixture files that end with `suffix`, in order. */
const namesOf = (format: string, suffix: string): string[] =>
  readdirSync(new URL(`../fixtures/${format}/`, import.meta.url))
    .filter((f) => f.endsWith(suffix))
    .sort();

/** Every `<case><suffix>` JSON file of a format, parsed. */
export function fixtureJsons(format: string, suffix: string): unknown[] {
  return namesOf(format, suffix).map(fixtureFiles(format).json);
}

/**
 * Every recorded stream of a format, one `data:` payload a line. `named` frames carry the payload's
 * `type` as the event name, as Messages and Responses upstreams send it.
 */
export function fixtureStreams(format: string, named: boolean): Frame[][] {
  return namesOf(format, '.chunks.jsonl').map((f) =>
    fixtureFiles(format)
      .text(f)
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
