// Golden fixtures of the anthropic-messages format (test/fixtures/anthropic-messages/<case>.*):
// `request.json` a client body and `ir.json` its IR request, or `chunks.jsonl` an upstream stream
// (one `data:` payload a line, as recorded), `ir.json` its IR events and `expected.sse` the bytes a
// Messages client receives for those events.
import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import { fixtureFiles } from '../../helpers/fixture-files.ts';

const files = fixtureFiles('anthropic-messages');
export const fixtureJson = files.json;
export const fixtureText = files.text;

/** One upstream SSE event per line; the event name is the payload's `type`, as the API sends it. */
export const fixtureChunks = (name: string): Array<{ event: string; data: string }> =>
  fixtureText(name)
    .split('\n')
    .filter((l) => l !== '')
    .map((data) => ({ event: String((JSON.parse(data) as { type: unknown }).type), data }));

/** The inbound context of a current SDK request. */
export const ctx = (headers: Record<string, string> = {}): InboundContext => ({
  headers: { 'anthropic-version': '2023-06-01', ...headers },
  params: {},
  query: {},
});

export { sseText, warnings } from '../../helpers/fixture-files.ts';

export { caught } from '../../helpers/caught.ts';
