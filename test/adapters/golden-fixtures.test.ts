// The golden fixtures of every chat format, driven by the format list (src/infra/formats/formats.ts): for each
// format, test/fixtures/<format name>/ holds its cases, one file per step, and a case runs the
// steps its files name:
//   <case>.request.json + <case>.ir.json     a client body decodes to exactly that IR request
//   <case>.chunks.jsonl + <case>.events.json an upstream stream (one `data:` payload a line; the
//                                            event name is its `type` when it has one) decodes to
//                                            those IR events
//   <case>.expected.sse                      those events (decoded, or the .events.json ones), encoded
//                                            for the case's request (its .request.json, else the
//                                            format's `streamRequest`), give these bytes
//   <case>.upstream.json + <case>.ir.json    the IR request encodes to that upstream body
// _golden.json says how the format's requests arrive (`inbound`), its `streamRequest` and the
// `upstreamModel`. Ids and the clock are injected (fixed), so every byte is reproducible.
// UPDATE_GOLDEN=1 rewrites the expected files from what the code produces (a missing one is
// written in any case): review the diff.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import t, { type Test } from 'tap';
import type { ChatClientCodec, InboundContext } from '../../adapters/shared/chat-adapter.ts';
import type { IdSource } from '../../adapters/shared/format-module.ts';
import { formats, isChatFormat, type ChatFormatModule } from '../../src/infra/formats/formats.ts';
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { GatewayError, type ErrorKind } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { sseText } from '../helpers/fixture-files.ts';

const fixturesRoot = join(import.meta.dirname, '../fixtures');
const update = process.env.UPDATE_GOLDEN === '1';

/** The injected clock (seconds) and ids: `resp_0001`, `msg_0002`, … from a fresh count per case. */
const clock = 1_741_476_800;
function sequentialIds(): IdSource {
  let n = 0;
  return { newId: (prefix) => `${prefix}_${String(++n).padStart(4, '0')}`, now: () => clock };
}

/** Encoders that read the wall clock (`created`) read the injected one while a case runs. */
async function atInjectedClock<T>(fn: () => T | Promise<T>): Promise<T> {
  const now = Date.now;
  Date.now = () => clock * 1000;
  try {
    return await fn();
  } finally {
    Date.now = now;
  }
}

type GoldenSettings = { inbound?: Partial<InboundContext>; streamRequest?: unknown; upstreamModel?: string };

/** Stream errors are class instances: compared by their fields. */
type PlainError = { kind: ErrorKind; status: number; message: string; param: string | null };
const plain = (events: StreamEvent[]): unknown[] =>
  events.map((e) =>
    e.type === 'error'
      ? {
          type: 'error',
          error: { kind: e.error.kind, status: e.error.status, message: e.error.message, param: e.error.param },
        }
      : e,
  );
const revive = (events: Array<Record<string, unknown>>): StreamEvent[] =>
  events.map((e) => {
    if (e.type !== 'error') return e as StreamEvent;
    const { kind, status, message, param } = e.error as PlainError;
    return { type: 'error', error: new GatewayError(kind, message, { status, param }) };
  });

/** JSON as stored: what JSON.stringify keeps (no `undefined` members). */
const asStored = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

function runFormat(t: Test, format: ChatFormatModule, dir: string): void {
  const settings: GoldenSettings = existsSync(join(dir, '_golden.json'))
    ? (JSON.parse(readFileSync(join(dir, '_golden.json'), 'utf8')) as GoldenSettings)
    : {};
  const inbound: InboundContext = { headers: {}, params: {}, query: {}, ...settings.inbound };
  const files = new Set(readdirSync(dir));
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  const json = (name: string): unknown => JSON.parse(read(name));
  /** Compares with the golden file; an update rewrites only files that differ (hand-kept layout stays). */
  const golden = (t: Test, name: string, actual: unknown): void => {
    const text = typeof actual === 'string' ? actual : `${JSON.stringify(actual, null, 2)}\n`;
    const same = (): boolean =>
      files.has(name) &&
      (typeof actual === 'string' ? actual === read(name) : isDeepStrictEqual(asStored(actual), json(name)));
    if (!files.has(name) || (update && !same())) writeFileSync(join(dir, name), text);
    if (typeof actual === 'string') t.equal(actual, read(name), name);
    else t.strictSame(asStored(actual), JSON.parse(read(name)), name);
  };
  const clientOf = (): ChatClientCodec => format.clientFor?.(sequentialIds()) ?? format.client;
  const cases = [
    ...new Set([...files].filter((f) => !f.startsWith('_')).map((f) => f.slice(0, f.indexOf('.')))),
  ].sort();
  t.ok(cases.length > 0, `${format.name} has golden cases`);

  for (const name of cases) {
    const has = (suffix: string): boolean => files.has(`${name}.${suffix}`);
    t.test(name, async (t) => {
      let request: ChatRequest | undefined;
      if (has('request.json')) {
        request = clientOf().decodeRequest(json(`${name}.request.json`), inbound);
        golden(t, `${name}.ir.json`, request);
      }
      if (has('upstream.json')) {
        const upstream = format.upstream;
        if (!upstream) throw new Error(`${format.name} has no upstream codec for ${name}.upstream.json`);
        const encoded = upstream.codec.encodeRequest(
          json(`${name}.ir.json`) as ChatRequest,
          settings.upstreamModel ?? 'upstream-model',
          () => {},
        );
        golden(t, `${name}.upstream.json`, encoded.body);
      }
      let events: StreamEvent[] | undefined;
      if (has('chunks.jsonl')) {
        const upstream = format.upstream;
        if (!upstream) throw new Error(`${format.name} has no upstream codec for ${name}.chunks.jsonl`);
        const decoder = upstream.codec.createStreamDecoder();
        const frames = read(`${name}.chunks.jsonl`)
          .split('\n')
          .filter((l) => l.trim() !== '');
        events = [...frames.flatMap((data) => decoder.push({ event: eventName(data), data })), ...decoder.end()];
        golden(t, `${name}.events.json`, plain(events));
      }
      if (has('expected.sse')) {
        const stream = events ?? revive(json(`${name}.events.json`) as Array<Record<string, unknown>>);
        const sse = await atInjectedClock(() => {
          const client = clientOf();
          const forStream = request ?? client.decodeRequest(settings.streamRequest, inbound);
          const encoder = client.createStreamEncoder(forStream);
          return sseText(stream.flatMap((e) => encoder.push(e)));
        });
        golden(t, `${name}.expected.sse`, sse);
      }
    });
  }
}

/** Upstreams that name their SSE events send the payload's `type` as the name. */
function eventName(data: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return undefined; // `[DONE]`
  }
  return typeof v === 'object' && v !== null && 'type' in v && typeof v.type === 'string' ? v.type : undefined;
}

for (const format of formats) {
  const dir = join(fixturesRoot, format.name);
  if (!isChatFormat(format) || !existsSync(dir)) continue;
  t.test(format.name, async (t) => runFormat(t, format, dir));
}
