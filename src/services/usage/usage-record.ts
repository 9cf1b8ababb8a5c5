// One ledger record per request that named a model (docs/usage-and-tracing.md): who, what, how
// much, what it cost, how it ended.
import type { UsageSource } from './usage-meter.ts';

export type UsageRecord = {
  /** Epoch ms when the request ended. */
  ts: number;
  /** UTC day (YYYY-MM-DD) of `ts`: the bucket of daily totals and budgets. */
  day: string;
  request_id: string;
  key: string;
  workspace: string;
  family: string;
  /** Client-facing model name. */
  model: string;
  provider: string;
  upstream_model: string;
  /** The client's wire format and the upstream's. */
  format_in: string;
  format_out: string;
  mode: string;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /**
   * How the token counts were obtained (src/services/usage/usage-meter.ts): `reported` by the
   * upstream, `partial` (what it reported before the stream ended, plus the output streamed), or
   * `estimated` by polygate.
   */
  usage_source: UsageSource;
  characters: number;
  audio_seconds: number;
  tasks: number;
  /** Web searches and page fetches polygate ran for the request (#27, docs/hosted-tools.md). */
  web_search_requests: number;
  web_fetch_requests: number;
  /** Nano-dollars (src/services/usage/prices.ts). */
  cost_nano: number;
  /** False when neither the model nor the route had a price (cost 0). */
  priced: boolean;
  outcome: string;
  status: number;
  // The request log's fields (#25, src/services/usage/request-log.ts). Optional: records written
  // before them (a sqlite file's rows, Redis lists, journal lines) still read, as unknown.
  /** The client's route (the router's pattern, else the path), printable ASCII, at most 200 characters. */
  route?: string;
  /** Milliseconds from the request's arrival to its record (an answer's end, a stream's last event). */
  latency_ms?: number;
  /** Milliseconds to a stream's first byte; absent for answers that were not streamed. */
  ttfb_ms?: number;
  /** The x-polygate-warnings of the request, bounded (request-log.ts `boundWarnings`). */
  warnings?: string[];
  /** True when the workspace captures content (usage.capture_content): its body and answer are stored beside the record. */
  content_captured?: boolean;
};

/** Numeric measures summed by the read API. */
export const measures = [
  'requests',
  'input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'characters',
  'audio_seconds',
  'tasks',
  'web_search_requests',
  'web_fetch_requests',
  'cost_nano',
  'unpriced',
  'estimated',
  'partial',
] as const;
export type Measure = (typeof measures)[number];

/** Daily totals of one key, model and provider. */
export type UsageRow = { day: string; key: string; model: string; provider: string } & Record<Measure, number>;

/** The UTC day last asked for and its bounds: every request of a day asks for the same one. */
let cached = { start: 0, end: 0, iso: '1970-01-01', month: '1970-01' };

function dayCache(ms: number): typeof cached {
  if (ms >= cached.start && ms < cached.end) return cached;
  const start = ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
  const iso = new Date(ms).toISOString().slice(0, 10);
  cached = { start, end: start + 86_400_000, iso, month: iso.slice(0, 7) };
  return cached;
}

export const dayOf = (ms: number): string => dayCache(ms).iso;

export const monthOf = (ms: number): string => dayCache(ms).month;

/** The record's contribution to its row's measures. */
export function measuresOf(r: UsageRecord): Record<Measure, number> {
  return {
    requests: 1,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    reasoning_tokens: r.reasoning_tokens,
    cache_read_tokens: r.cache_read_tokens,
    cache_write_tokens: r.cache_write_tokens,
    characters: r.characters,
    audio_seconds: r.audio_seconds,
    tasks: r.tasks,
    web_search_requests: r.web_search_requests,
    web_fetch_requests: r.web_fetch_requests,
    cost_nano: r.cost_nano,
    unpriced: r.priced ? 0 : 1,
    estimated: r.usage_source === 'estimated' ? 1 : 0,
    partial: r.usage_source === 'partial' ? 1 : 0,
  };
}

/** Tokens counted against a budget: the prompt and the answer. */
export const budgetTokensOf = (r: UsageRecord): number => r.input_tokens + r.output_tokens;

export function emptyRow(day: string, key: string, model: string, provider: string): UsageRow {
  const row = { day, key, model, provider } as UsageRow;
  for (const m of measures) row[m] = 0;
  return row;
}

/** Adds measures into a row; audio seconds stay rounded to the millisecond (they are summed as floats). */
export function addTo(row: UsageRow, values: Record<Measure, number>): void {
  for (const m of measures) row[m] += values[m];
  row.audio_seconds = Math.round(row.audio_seconds * 1000) / 1000;
}
