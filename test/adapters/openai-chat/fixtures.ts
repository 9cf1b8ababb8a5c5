// Golden fixtures of the openai-chat format (test/fixtures/openai-chat/<case>.*) and the framing
// polygate's SSE writer uses, so stream tests compare the exact bytes a client receives.
import { readFileSync } from 'node:fs';
import type { SseFrame } from '../../../adapters/shared/chat-adapter.ts';

const dir = new URL('../../fixtures/openai-chat/', import.meta.url);

export const fixtureJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
export const fixtureText = (name: string): string => readFileSync(new URL(name, dir), 'utf8');

/** One upstream SSE event per line: each line is the `data:` payload. */
export const fixtureChunks = (name: string): Array<{ data: string }> =>
  fixtureText(name)
    .split('\n')
    .filter((l) => l !== '')
    .map((data) => ({ data }));

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
