// The `usage`, `admin` and `tracing` sections of config/gateway.yaml (docs/usage-and-tracing.md):
// their types, defaults and the checks JSON Schema cannot make (references to keys and models).
import type { BudgetLimit, BudgetSpec } from './budget-spec.ts';

/** USD. Tokens per million; speech per character and per second; music per task. */
export type Price = {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
  per_character?: number;
  per_second?: number;
  per_task?: number;
};

/** A key's budget in the YAML's first form: per UTC day and calendar month; 0 or absent = no limit. */
export type Budget = {
  usd_per_day?: number;
  usd_per_month?: number;
  tokens_per_day?: number;
  tokens_per_month?: number;
};

/** Where the soft-limit webhook goes (docs/usage-and-tracing.md); signed as music callbacks are. */
export type BudgetWebhook = { url: string; secret: string };

export type UsageConfig = {
  ledger: boolean;
  flush_interval_ms: number;
  batch_size: number;
  retention_days: number;
  /** Longest a request waits on the ledger's store (budget checks, its record's write). */
  store_wait_ms: number;
  /** Budgeted keys while the store cannot answer: refused (`closed`) or served unchecked (`open`). */
  on_store_error: 'closed' | 'open';
  /** Output tokens reserved for a request that names no output limit. */
  reserve_output_tokens: number;
  prices: { models: Record<string, Price>; providers: Record<string, Record<string, Price>> };
  /** By key id, each in the BudgetSpec form (the YAML's `usd_per_day` … form is turned into it on load). */
  budgets: Record<string, BudgetSpec>;
  /** By workspace id and by provider name. */
  workspace_budgets: Record<string, BudgetSpec>;
  provider_budgets: Record<string, BudgetSpec>;
  budget_webhook?: BudgetWebhook;
  /**
   * Workspaces whose requests' bodies and answers are stored beside their records, each bounded
   * by max_bytes (the request log, #25); none by default.
   */
  capture_content: Record<string, { max_bytes: number }>;
};

export type AdminConfig = {
  token?: string;
  /** Wrong admin tokens one client address may present a minute; past it, a 429 until the minute ends (src/app/admin-throttle.ts). */
  wrong_tokens_per_minute: number;
};

export type TracingConfig = {
  endpoint?: string;
  headers: Record<string, string>;
  service_name: string;
  sample_ratio: number;
  /** Callers' sampled traceparents followed per second at most; past it a request is sampled like a new trace. */
  max_followed_per_second: number;
  max_queue_size: number;
  export_interval_ms: number;
};

type RawUsage = Partial<Omit<UsageConfig, 'prices' | 'budgets' | 'budget_webhook' | 'capture_content'>> & {
  prices?: Partial<UsageConfig['prices']>;
  budgets?: Record<string, Budget | (Budget & Partial<BudgetSpec>)>;
  budget_webhook?: { url: string; secret?: string };
  capture_content?: Record<string, { max_bytes?: number } | null>;
};

/**
 * A key budget as the YAML has it, in the one shape every check reads: `usd_per_day` and
 * `tokens_per_day` become a day limit, `usd_per_month` and `tokens_per_month` a month limit
 * (0 = none, as before), after the `limits` the same entry lists.
 */
export function budgetSpecOf(b: Budget & Partial<BudgetSpec>): BudgetSpec {
  const limits: BudgetLimit[] = [...(b.limits ?? [])];
  const usdDay = b.usd_per_day ?? 0;
  const tokDay = b.tokens_per_day ?? 0;
  const usdMonth = b.usd_per_month ?? 0;
  const tokMonth = b.tokens_per_month ?? 0;
  if (usdDay > 0 || tokDay > 0)
    limits.push({ period: 'day', ...(usdDay > 0 && { usd: usdDay }), ...(tokDay > 0 && { tokens: tokDay }) });
  if (usdMonth > 0 || tokMonth > 0)
    limits.push({ period: 'month', ...(usdMonth > 0 && { usd: usdMonth }), ...(tokMonth > 0 && { tokens: tokMonth }) });
  return { limits };
}

const mapValues = <A, B>(o: Record<string, A>, f: (a: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

export function usageDefaults(u: RawUsage | undefined): UsageConfig {
  return {
    ledger: u?.ledger ?? true,
    flush_interval_ms: u?.flush_interval_ms ?? 1000,
    batch_size: u?.batch_size ?? 500,
    retention_days: u?.retention_days ?? 90,
    store_wait_ms: u?.store_wait_ms ?? 250,
    on_store_error: u?.on_store_error ?? 'closed',
    reserve_output_tokens: u?.reserve_output_tokens ?? 4096,
    prices: { models: u?.prices?.models ?? {}, providers: u?.prices?.providers ?? {} },
    budgets: mapValues(u?.budgets ?? {}, budgetSpecOf),
    workspace_budgets: u?.workspace_budgets ?? {},
    provider_budgets: u?.provider_budgets ?? {},
    budget_webhook: u?.budget_webhook && { url: u.budget_webhook.url, secret: u.budget_webhook.secret ?? '' },
    capture_content: Object.fromEntries(
      Object.entries(u?.capture_content ?? {}).map(([w, c]) => [w, { max_bytes: c?.max_bytes ?? 65_536 }]),
    ),
  };
}

export function tracingDefaults(t: Partial<TracingConfig> | undefined): TracingConfig {
  return {
    endpoint: t?.endpoint || undefined,
    headers: t?.headers ?? {},
    service_name: t?.service_name ?? 'polygate',
    // 1 in 100 new traces: what keeps the ledger and traces within 5 % of the fastest path's rate (bench/RESULTS.md).
    sample_ratio: t?.sample_ratio ?? 0.01,
    // A caller's sampled flag costs a trace of several spans; this many a second keeps it a debugging aid, not a lever.
    max_followed_per_second: t?.max_followed_per_second ?? 10,
    max_queue_size: t?.max_queue_size ?? 4096,
    export_interval_ms: t?.export_interval_ms ?? 1000,
  };
}

type Checked = {
  usage: UsageConfig;
  keys: { id: string }[];
  models: Record<string, unknown>;
  providers: Record<string, unknown>;
};

/** References the schema cannot check: budgets name keys, prices name models and providers. */
export function usageProblems(c: Checked): string[] {
  const problems: string[] = [];
  const keyIds = new Set(c.keys.map((k) => k.id));
  for (const id of Object.keys(c.usage.budgets))
    if (!keyIds.has(id)) problems.push(`/usage/budgets/${id}: unknown key id '${id}'`);
  for (const id of Object.keys(c.usage.provider_budgets))
    if (!(id in c.providers)) problems.push(`/usage/provider_budgets/${id}: unknown provider '${id}'`);
  for (const [where, specs] of [
    ['budgets', c.usage.budgets],
    ['workspace_budgets', c.usage.workspace_budgets],
    ['provider_budgets', c.usage.provider_budgets],
  ] as const)
    for (const [id, spec] of Object.entries(specs)) problems.push(...specProblems(`/usage/${where}/${id}`, spec));
  c.keys.forEach((k, i) => {
    // A workspace's and a provider's totals are kept under `@workspace:`, `@provider:` (ledger-store.ts scopeId).
    if (k.id.startsWith('@')) problems.push(`/keys/${i}/id: a key id cannot start with '@' ('${k.id}')`);
  });
  for (const m of Object.keys(c.usage.prices.models))
    if (!(m in c.models)) problems.push(`/usage/prices/models/${m}: unknown model '${m}'`);
  for (const p of Object.keys(c.usage.prices.providers))
    if (!(p in c.providers)) problems.push(`/usage/prices/providers/${p}: unknown provider '${p}'`);
  for (const where of ['budgets', 'workspace_budgets', 'provider_budgets'] as const)
    if (!c.usage.ledger && Object.keys(c.usage[where]).length > 0)
      problems.push(`/usage/${where}: budgets are enforced from the ledger; they need usage.ledger: true`);
  return problems;
}

/** Budget settings that run but probably not as meant: said at start and by check-config. */
export function usageWarnings(u: UsageConfig): string[] {
  const out: string[] = [];
  const soft = [u.budgets, u.workspace_budgets, u.provider_budgets].some((specs) =>
    Object.values(specs).some((s) => s.limits.some((l) => l.soft_ratio !== undefined)),
  );
  if (soft && !u.budget_webhook)
    out.push('usage: a budget limit has soft_ratio but usage.budget_webhook is not set: soft limits announce nothing');
  if (u.budget_webhook && !u.budget_webhook.secret)
    out.push('usage.budget_webhook.secret is empty: budget webhooks are sent unsigned');
  return out;
}

/** What the schema cannot say of one budget: a period listed twice (which limit would hold?). */
function specProblems(path: string, spec: BudgetSpec): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  // The YAML's day and month fields are appended after `limits`: a clash names the field.
  spec.limits.forEach((l, i) => {
    if (seen.has(l.period))
      out.push(
        `${path}/limits/${i}/period: period '${l.period}' is limited twice (usd_per_* fields and limits[] included)`,
      );
    seen.add(l.period);
  });
  return out;
}
