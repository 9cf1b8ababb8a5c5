// What the golden-fixture runner (test/adapters/golden-fixtures.test.ts) and a format's own
// adapter tests read the same way: a format's fixture files (test/fixtures/<format>/), the bytes
// polygate's SSE writer puts on the wire for encoded frames, and the warnings an encoder reports.
import { readFileSync } from 'node:fs';
import type { SseFrame } from '../../adapters/shared/chat-adapter.ts';

/** Readers of test/fixtures/<format>/: a file's JSON and its text. */
export function fixtureFiles(format: string): { json(name: string): unknown; text(name: string): string } {
  const dir = new URL(`../fixtures/${format}/`, import.meta.url);
  const text = (name: string): string => readFileSync(new URL(name, dir), 'utf8');
  return { text, json: (name) => JSON.parse(text(name)) as unknown };
}

/** Frames as src/infra/http/sse-writer.ts writes them. */
export const sseText = (frames: SseFrame[]): string =>
  frames
    .map((f) => (f.event === undefined ? `data: ${f.data}\n\n` : `event: ${f.event}\ndata: ${f.data}\n\n`))
    .join('');

/** Collects the warnings an encoder reports. */
export function warnings(): {
  warn: (field: string, message: string) => void;
  list: Array<{ field: string; message: string }>;
} {
  const list: Array<{ field: string; message: string }> = [];
  return { warn: (field, message) => void list.push({ field, message }), list };
}
