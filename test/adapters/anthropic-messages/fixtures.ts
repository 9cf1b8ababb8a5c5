// Golden fixtures of the anthropic-messages format (test/fixtures/anthropic-messages/<case>.*):
// `request.json` a client body and `ir.json` its IR request, or `chunks.jsonl` an upstream stream
// (one `data:` payload a line, as recorded), `ir.json` its IR events and `expected.sse` the bytes a
// Messages client receives for those events.
import { readFileSync } from 'node:fs';
import type { InboundContext, SseFrame } from '../../../adapters/shared/chat-adapter.ts';

const dir = new URL('../../fixtures/anthropic-messages/', import.meta.url);

export const fixtureJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
export const fixtureText = (name: string): string => readFileSync(new URL(name, dir), 'utf8');

/** One upstream SSE event per line; the event name is the payload's `type`, as the API sends it. */
export const fixtureChunks = (name: string): Array<{ event: string; data: string }> =>
  fixtureText(name)
    .split('\n')
    .filter((l) => l !== '')
    .map((data) => ({ event: String((JSON.parse(data) as { type: unknown }).type), data }));

/** Frames as src/infra/http/sse-writer.ts writes them. */
export const sseText = (frames: SseFrame[]): string =>
  frames
    .map((f) => (f.event === undefined ? `data: ${f.data}\n\n` : `event: ${f.event}\ndata: ${f.data}\n\n`))
    .join('');

/** The inbound context of a current SDK request. */
export const ctx = (headers: Record<string, string> = {}): InboundContext => ({
  headers: { 'anthropic-version': '2023-06-01', ...headers },
  params: {},
  query: {},
});

/** Collects the warnings an encoder reports. */
export function warnings(): {
  warn: (field: string, message: string) => void;
  list: Array<{ field: string; message: string }>;
} {
  const list: Array<{ field: string; message: string }> = [];
  return { warn: (field, message) => void list.push({ field, message }), list };
}

export { caught } from '../../helpers/caught.ts';
