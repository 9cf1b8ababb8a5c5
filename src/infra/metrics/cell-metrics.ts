// Counters, gauges and histograms for the metrics every request touches (src/infra/metrics/registry.ts).
// prom-client's own classes check the labels and build a hash string from them on every `inc` or
// `observe`: ~0.5 µs and ~0.5 KB of garbage each, a dozen times per request (bench/RESULTS.md,
// "Speed, round two"). These find a label set's cell by walking one map per label name, in the
// metric's label order, so an update allocates nothing once its label set has been seen; the text
// exposition is still prom-client's (its registry formats and escapes what `get` returns). Label
// sets are bounded as everywhere in the registry: their values come from code and the config.
import type { Registry } from 'prom-client';

type Labels<L extends string> = Partial<Record<L, string | number>>;
type Value = { labels: Record<string, string | number>; value: number; metricName?: string };
/** What prom-client's registry reads of a metric (its `Metric` interface, structurally). */
type Exposed = {
  name: string;
  help: string;
  type: string;
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Value[]; aggregator: 'sum' }>;
  reset(): void;
};

/** Cells by label values: one nested map per label name. */
class LabelCells<L extends string, C> {
  #root = new Map<unknown, unknown>();
  readonly #all: { labels: Record<string, string | number>; cell: C }[] = [];
  readonly #names: readonly L[];
  readonly #make: () => C;

  constructor(names: readonly L[], make: () => C) {
    this.#names = names;
    this.#make = make;
  }

  get(labels: Labels<L>): C {
    const names = this.#names;
    let m = this.#root;
    const last = names.length - 1;
    for (let i = 0; i < last; i++) {
      const v = labels[names[i]];
      let next = m.get(v) as Map<unknown, unknown> | undefined;
      if (!next) m.set(v, (next = new Map()));
      m = next;
    }
    const v = last < 0 ? undefined : labels[names[last]];
    let cell = m.get(v) as C | undefined;
    if (cell === undefined) {
      cell = this.#make();
      m.set(v, cell);
      // A label left out is left out of the exposition too, as prom-client does.
      const own: Record<string, string | number> = {};
      for (const n of names) if (labels[n] !== undefined) own[n] = labels[n] as string | number;
      this.#all.push({ labels: own, cell });
    }
    return cell;
  }

  entries(): readonly { labels: Record<string, string | number>; cell: C }[] {
    return this.#all;
  }

  clear(): void {
    this.#root = new Map();
    this.#all.length = 0;
  }
}

type Options<L extends string> = { name: string; help: string; labelNames: readonly L[]; registers: Registry[] };

abstract class CellMetric<L extends string, C> implements Exposed {
  readonly name: string;
  readonly help: string;
  abstract readonly type: string;
  readonly aggregator = 'sum' as const;
  protected readonly cells: LabelCells<L, C>;

  constructor(o: Options<L>, make: () => C) {
    this.name = o.name;
    this.help = o.help;
    this.cells = new LabelCells(o.labelNames, make);
    // prom-client's registry takes any object with its metric interface; its typings list its own classes only.
    for (const r of o.registers) r.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  protected abstract values(): Value[];

  async get(): Promise<{ name: string; help: string; type: string; values: Value[]; aggregator: 'sum' }> {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }

  reset(): void {
    this.cells.clear();
  }
}

/** A counter (`type` counter) or a gauge: one number per label set. */
export class CellCounter<L extends string> extends CellMetric<L, { value: number }> {
  readonly type: 'counter' | 'gauge';

  constructor(o: Options<L> & { type?: 'counter' | 'gauge' }) {
    super(o, () => ({ value: 0 }));
    this.type = o.type ?? 'counter';
  }

  inc(labels: Labels<L>, by = 1): void {
    this.cells.get(labels).value += by;
  }

  dec(labels: Labels<L>, by = 1): void {
    this.cells.get(labels).value -= by;
  }

  protected values(): Value[] {
    return this.cells.entries().map(({ labels, cell }) => ({ labels, value: cell.value }));
  }
}

/** Cumulative buckets, a sum and a count per label set, exposed as prom-client exposes a histogram. */
export class CellHistogram<L extends string> extends CellMetric<
  L,
  { counts: Float64Array; sum: number; count: number }
> {
  readonly type = 'histogram';
  readonly #bounds: readonly number[];

  constructor(o: Options<L> & { buckets: readonly number[] }) {
    const bounds = [...o.buckets].sort((a, b) => a - b);
    super(o, () => ({ counts: new Float64Array(bounds.length), sum: 0, count: 0 }));
    this.#bounds = bounds;
  }

  observe(labels: Labels<L>, value: number): void {
    if (!Number.isFinite(value)) return;
    const c = this.cells.get(labels);
    c.sum += value;
    c.count++;
    // Counted in the first bucket that holds it; `values` adds them up into cumulative ones.
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        c.counts[i]++;
        break;
      }
    }
  }

  /** Sets a label set to zero, so it is exposed before its first observation. */
  zero(labels: Labels<L>): void {
    this.cells.get(labels);
  }

  protected values(): Value[] {
    const out: Value[] = [];
    for (const { labels, cell } of this.cells.entries()) {
      let cumulative = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        cumulative += cell.counts[i];
        out.push({ labels: { le: this.#bounds[i], ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      out.push({ labels: { le: '+Inf', ...labels }, value: cell.count, metricName: `${this.name}_bucket` });
      out.push({ labels, value: cell.sum, metricName: `${this.name}_sum` });
      out.push({ labels, value: cell.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
