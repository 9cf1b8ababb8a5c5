// Sends finished spans to the OTLP/HTTP collector (docs/usage-and-tracing.md): each written as
// OTLP JSON (src/tracing/otlp-json.ts) into a batch as it ends, batches of up to `batchSize` sent every
// `intervalMs` or as soon as a batch is full, over one keep-alive connection pool. Bounded: at most
// `maxQueue` spans wait (past it new ones are dropped and counted) and at most `maxInFlight`
// exports are on the wire (the rest wait in the queue). A failed export is dropped, as the SDK's
// batch processor does: traces are diagnostics, not records (the usage ledger is the record).
import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { exportHead, exportTail, spanJson, type OtlpResource } from './otlp-json.ts';
import type { SpanRecord } from './span-record.ts';

export type OtlpExporterOptions = {
  url: string;
  headers: Record<string, string>;
  resource: OtlpResource;
  maxQueue: number;
  intervalMs: number;
  batchSize?: number;
  maxInFlight?: number;
  timeoutMs?: number;
};

/** Spans written as OTLP JSON into one buffer, comma-separated: the body of one export but for its head and tail. */
type Batch = { buf: Buffer; bytes: number; spans: number };

/** A batch's buffer; a span that needs more (content attributes) gets one of its own size. */
const batchBytes = 256 * 1024;

export class OtlpExporter {
  readonly #url: URL;
  readonly #request: typeof httpRequest;
  readonly #options: RequestOptions;
  readonly #head: Buffer;
  readonly #tail = Buffer.from(exportTail);
  readonly #headers: Record<string, string>;
  readonly #maxQueue: number;
  readonly #batchSize: number;
  readonly #maxInFlight: number;
  readonly #timer: NodeJS.Timeout;
  /**
   * Each span is written into the open batch as it ends: the record dies young, and the bytes are
   * written once (joining thousands of span strings at export time cost more than making them).
   */
  #open: Batch | undefined;
  #ready: Batch[] = [];
  /** Spans in #open and #ready. */
  #queued = 0;
  #inFlight = new Set<Promise<void>>();
  #soon = false;
  #closed = false;
  /** Spans dropped: queue full, export failed, or ended after shutdown. */
  dropped = 0;
  /** Spans the collector answered 2xx for. */
  exported = 0;

  constructor(o: OtlpExporterOptions) {
    this.#url = new URL(o.url);
    const https = this.#url.protocol === 'https:';
    this.#request = https ? httpsRequest : httpRequest;
    const agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 2 }) : new HttpAgent({ keepAlive: true, maxSockets: 2 });
    this.#options = { method: 'POST', agent, timeout: o.timeoutMs ?? 10_000 };
    this.#head = Buffer.from(exportHead(o.resource));
    this.#headers = { ...o.headers, 'content-type': 'application/json' };
    this.#maxQueue = o.maxQueue;
    this.#batchSize = o.batchSize ?? 512;
    this.#maxInFlight = o.maxInFlight ?? 2;
    this.#timer = setInterval(() => this.#sendAll(), o.intervalMs).unref();
  }

  /** A span that has ended. */
  add(span: SpanRecord): void {
    if (this.#closed || this.#queued >= this.#maxQueue) {
      this.dropped++;
      return;
    }
    const json = spanJson(span);
    // UTF-8 takes at most 3 bytes per UTF-16 unit, plus the comma.
    const need = json.length * 3 + 1;
    let b = this.#open;
    if (b !== undefined && b.buf.length - b.bytes < need) {
      this.#seal(b);
      b = undefined;
    }
    if (b === undefined) b = this.#open = { buf: Buffer.allocUnsafe(Math.max(batchBytes, need)), bytes: 0, spans: 0 };
    if (b.spans > 0) b.buf[b.bytes++] = 0x2c;
    b.bytes += b.buf.write(json, b.bytes, 'utf8');
    b.spans++;
    this.#queued++;
    if (b.spans >= this.#batchSize) this.#seal(b);
  }

  /** The open batch is complete: it leaves on the next turn, not inside the request that filled it. */
  #seal(b: Batch): void {
    this.#open = undefined;
    this.#ready.push(b);
    if (this.#soon) return;
    this.#soon = true;
    setImmediate(() => {
      this.#soon = false;
      this.#sendReady();
    });
  }

  /** Every queued span, the open batch too (the interval, shutdown). */
  #sendAll(): void {
    if (this.#open !== undefined && this.#open.spans > 0) this.#seal(this.#open);
    this.#sendReady();
  }

  /** Starts exports of complete batches, as far as the in-flight bound allows. */
  #sendReady(): void {
    while (this.#ready.length > 0 && this.#inFlight.size < this.#maxInFlight) {
      const batch = this.#ready.shift() as Batch;
      this.#queued -= batch.spans;
      const p = this.#post(batch);
      this.#inFlight.add(p);
      void p.finally(() => {
        this.#inFlight.delete(p);
        this.#sendReady();
      });
    }
  }

  #post(batch: Batch): Promise<void> {
    const body = batch.buf.subarray(0, batch.bytes);
    const length = this.#head.length + body.length + this.#tail.length;
    return new Promise<void>((done) => {
      const req = this.#request(this.#url, { ...this.#options, headers: { ...this.#headers, 'content-length': String(length) } }, (res) => {
        const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
        res.resume();
        res.on('end', () => {
          if (ok) this.exported += batch.spans;
          else this.dropped += batch.spans;
          done();
        });
        res.on('error', () => {
          this.dropped += batch.spans;
          done();
        });
      });
      req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
      req.on('error', () => {
        this.dropped += batch.spans;
        done();
      });
      req.cork();
      req.write(this.#head);
      req.write(body);
      req.end(this.#tail);
    });
  }

  /** Exports everything queued and waits for it (SIGTERM drain); spans ending later are dropped. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#sendAll();
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    (this.#options.agent as HttpAgent).destroy();
  }
}
