// Sends finished spans to the OTLP/HTTP collector (docs/usage-and-tracing.md): queued as records,
// written as OTLP JSON (src/tracing/otlp-json.ts) in batches of up to `batchSize`, every
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

export class OtlpExporter {
  readonly #url: URL;
  readonly #request: typeof httpRequest;
  readonly #options: RequestOptions;
  readonly #head: string;
  readonly #headers: Record<string, string>;
  readonly #maxQueue: number;
  readonly #batchSize: number;
  readonly #maxInFlight: number;
  readonly #timer: NodeJS.Timeout;
  /** Spans as OTLP JSON, written when they end: the records die young, a string is cheap to keep until the export. */
  #queue: string[] = [];
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
    this.#head = exportHead(o.resource);
    this.#maxQueue = o.maxQueue;
    this.#batchSize = o.batchSize ?? 512;
    this.#maxInFlight = o.maxInFlight ?? 2;
    this.#headers = { ...o.headers, 'content-type': 'application/json' };
    this.#timer = setInterval(() => this.#sendAll(), o.intervalMs).unref();
  }

  /** A span that has ended. */
  add(span: SpanRecord): void {
    if (this.#closed || this.#queue.length >= this.#maxQueue) {
      this.dropped++;
      return;
    }
    this.#queue.push(spanJson(span));
    // A full batch leaves on the next turn, not inside the request that filled it.
    if (this.#queue.length >= this.#batchSize && !this.#soon) {
      this.#soon = true;
      setImmediate(() => {
        this.#soon = false;
        this.#sendAll();
      });
    }
  }

  /** Starts exports for what is queued, as far as the in-flight bound allows. */
  #sendAll(): void {
    while (this.#queue.length > 0 && this.#inFlight.size < this.#maxInFlight) {
      const batch = this.#queue.length <= this.#batchSize ? this.#queue : this.#queue.slice(0, this.#batchSize);
      this.#queue = batch === this.#queue ? [] : this.#queue.slice(this.#batchSize);
      const p = this.#post(batch);
      this.#inFlight.add(p);
      void p.finally(() => {
        this.#inFlight.delete(p);
        if (this.#queue.length >= this.#batchSize || (this.#closed && this.#queue.length > 0)) this.#sendAll();
      });
    }
  }

  #post(batch: string[]): Promise<void> {
    const bytes = Buffer.from(this.#head + batch.join(',') + exportTail, 'utf8');
    return new Promise<void>((done) => {
      const req = this.#request(this.#url, { ...this.#options, headers: { ...this.#headers, 'content-length': String(bytes.length) } }, (res) => {
        const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
        res.resume();
        res.on('end', () => {
          if (ok) this.exported += batch.length;
          else this.dropped += batch.length;
          done();
        });
        res.on('error', () => {
          this.dropped += batch.length;
          done();
        });
      });
      req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
      req.on('error', () => {
        this.dropped += batch.length;
        done();
      });
      req.end(bytes);
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
