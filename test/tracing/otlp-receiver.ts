// An OTLP/HTTP trace receiver for the tests: takes the exporter's JSON export on loopback and
// keeps every span with its resource, flattened (attributes as plain values).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
type WireSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
};
type Export = { resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: WireSpan[] }[] }[] };

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: number;
  resource: Record<string, unknown>;
  start: bigint;
  end: bigint;
};

export type OtlpReceiver = {
  url: string;
  spans: ReceivedSpan[];
  contentTypes: string[];
  /** Every export's body as it arrived (events, status messages and all: what a secret scan reads). */
  raw: string[];
  close(): Promise<void>;
};

const valueOf = (v: AnyValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  v.arrayValue?.values.map(valueOf);
const flat = (kvs: KeyValue[] = []): Record<string, unknown> =>
  Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const raw: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      const text = Buffer.concat(chunks).toString('utf8');
      raw.push(text);
      const body = JSON.parse(text) as Export;
      for (const rs of body.resourceSpans) {
        const resource = flat(rs.resource.attributes);
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: flat(s.attributes),
              status: s.status?.code ?? 0,
              resource,
              start: BigInt(s.startTimeUnixNano),
              end: BigInt(s.endTimeUnixNano),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    contentTypes,
    raw,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
