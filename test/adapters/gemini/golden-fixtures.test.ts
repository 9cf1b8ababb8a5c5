// Golden fixtures (test/fixtures/gemini/<case>.*): a client body decodes to exactly the IR in
// `.ir.json`; the upstream chunks in `.chunks.jsonl` (one Gemini SSE chunk a line), decoded by the
// upstream codec and re-encoded by the client codec for that request, give `.expected.sse`
// byte for byte (framed the way src/http/sse-writer.ts writes frames).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { geminiClientCodec, geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';

const dir = join(import.meta.dirname, '../../fixtures/gemini');
const cases = readdirSync(dir).filter((f) => f.endsWith('.request.json')).map((f) => f.slice(0, -'.request.json'.length));
const ctx: InboundContext = { headers: {}, params: { model: 'models/gemini-2.5-flash' }, query: { alt: 'sse' }, streamByRoute: true };
const read = (name: string): string => readFileSync(join(dir, name), 'utf8');

t.ok(cases.length >= 5, 'the fixture set is there');

for (const name of cases) {
  t.test(name, async (t) => {
    const request = geminiClientCodec.decodeRequest(JSON.parse(read(`${name}.request.json`)), ctx);
    t.same(request, JSON.parse(read(`${name}.ir.json`)), 'request decodes to the golden IR');

    const decoder = geminiUpstreamCodec.createStreamDecoder();
    const encoder = geminiClientCodec.createStreamEncoder(request);
    const lines = read(`${name}.chunks.jsonl`).split('\n').filter((l) => l.trim() !== '');
    const events = [...lines.flatMap((data) => decoder.push({ data })), ...decoder.end()];
    const sse = events.flatMap((e) => encoder.push(e)).map((f) => (f.event === undefined ? `data: ${f.data}\n\n` : `event: ${f.event}\ndata: ${f.data}\n\n`)).join('');
    t.equal(sse, read(`${name}.expected.sse`), 'chunks re-encode to the golden SSE');
  });
}
