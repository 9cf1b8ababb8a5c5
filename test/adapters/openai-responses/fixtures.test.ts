// Golden fixtures of the openai-responses format (test/fixtures/openai-responses/<case>.*):
// `request.json` a client body and `ir.json` its IR request; or `chunks.jsonl` an upstream stream
// (one `data:` payload a line; the event name is its `type`), `ir.json` the IR events the upstream
// decoder makes of it and `expected.sse` the bytes a Responses client receives for those events.
// POLYGATE_UPDATE_FIXTURES=1 rewrites ir.json / expected.sse (review the diff before keeping it).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { createResponsesClientCodec, responsesUpstreamCodec, sequentialIds } from '../../../adapters/openai-responses/index.ts';

const dir = new URL('../../fixtures/openai-responses/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, dir), 'utf8');
const update = process.env.POLYGATE_UPDATE_FIXTURES === '1';
const ctx = { headers: {}, params: {}, query: {} };

/** Compares with the golden file, or writes it when updating. */
function golden(t: Test, name: string, actual: string): void {
  if (update || !existsSync(new URL(name, dir))) writeFileSync(new URL(name, dir), actual);
  t.equal(actual, read(name), name);
}

/** StreamEvent errors are class instances: compared by their fields. */
const plain = (events: StreamEvent[]): unknown[] =>
  events.map((e) => (e.type === 'error' ? { type: 'error', error: { kind: e.error.kind, status: e.error.status, message: e.error.message, param: e.error.param } } : e));

const files = readdirSync(dir);
const cases = (suffix: string): string[] => files.filter((f) => f.endsWith(suffix)).map((f) => f.slice(0, -suffix.length));

for (const name of cases('.request.json')) {
  t.test(`${name}: the client request decodes to the golden IR`, async (t) => {
    const ir = createResponsesClientCodec(sequentialIds()).decodeRequest(JSON.parse(read(`${name}.request.json`)), ctx);
    golden(t, `${name}.ir.json`, JSON.stringify(ir, null, 2) + '\n');
  });
}

for (const name of cases('.chunks.jsonl')) {
  t.test(`${name}: upstream events → IR events → client SSE bytes`, async (t) => {
    const decoder = responsesUpstreamCodec.createStreamDecoder();
    const events: StreamEvent[] = [];
    for (const line of read(`${name}.chunks.jsonl`).split('\n').filter(Boolean)) {
      events.push(...decoder.push({ event: String((JSON.parse(line) as { type: unknown }).type), data: line }));
    }
    events.push(...decoder.end());
    golden(t, `${name}.ir.json`, JSON.stringify(plain(events), null, 2) + '\n');

    const codec = createResponsesClientCodec(sequentialIds(1_741_476_800));
    const request = codec.decodeRequest({ model: 'gpt-4.1', input: 'x', stream: true, include: ['reasoning.encrypted_content'] }, ctx);
    const encoder = codec.createStreamEncoder(request);
    const sse = events.flatMap((e) => encoder.push(e)).map((f) => `event: ${f.event}\ndata: ${f.data}\n\n`).join('');
    golden(t, `${name}.expected.sse`, sse);
  });
}
