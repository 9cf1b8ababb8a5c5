// Small numeric helpers shared by the load generators and the report.

/** A growable list of float samples (latencies in ms) without per-sample allocation. */
export class Samples {
  #data = new Float64Array(1 << 14);
  #n = 0;

  push(v: number): void {
    if (this.#n === this.#data.length) {
      const next = new Float64Array(this.#data.length * 2);
      next.set(this.#data);
      this.#data = next;
    }
    this.#data[this.#n++] = v;
  }

  get count(): number {
    return this.#n;
  }

  /** Percentiles (0–100) by nearest rank over a sorted copy; NaN when empty. */
  percentiles(...ps: number[]): number[] {
    if (this.#n === 0) return ps.map(() => Number.NaN);
    const sorted = this.#data.slice(0, this.#n).sort();
    return ps.map((p) => sorted[Math.min(this.#n - 1, Math.max(0, Math.ceil((p / 100) * this.#n) - 1))]);
  }

  max(): number {
    let m = Number.NaN;
    for (let i = 0; i < this.#n; i++) if (!(this.#data[i] <= m)) m = this.#data[i];
    return m;
  }
}

/** The median of repeats: one slow repeat (a GC storm, a noisy neighbour) does not move it. */
export function median(values: number[]): number {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
