// A key as the admin API shows it (KeyView, docs/admin-api.md "Keys"): never its secret, at most
// the secret's last 4 characters.
import type { BudgetLimit, BudgetSpec } from '../infra/config/budget-spec.ts';
import type { GatewayConfig, KeyConfig } from '../infra/config/gateway-config.ts';
import type { StoredKey } from '../services/auth/key-table.ts';

export type KeyView = {
  id: string;
  workspace: string;
  models: string[];
  limits: { rpm: number; tpm: number; concurrency: number };
  budget: BudgetSpec | null;
  labels: Record<string, string>;
  expires_at: string | null;
  disabled: boolean;
  source: 'config' | 'runtime';
  created_at: string | null;
  updated_at: string | null;
  secret_hint: string | null;
  previous_secret_valid_until: string | null;
};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function runtimeKeyView(k: StoredKey, now: number): KeyView {
  return {
    id: k.id,
    workspace: k.workspace,
    models: k.models,
    limits: k.limits,
    budget: k.budget,
    labels: k.labels,
    expires_at: iso(k.expires_at),
    disabled: k.disabled,
    source: 'runtime',
    created_at: iso(k.created_at),
    updated_at: iso(k.updated_at),
    secret_hint: k.secret_hint,
    // A grace that has ended is no grace: the old secret is refused.
    previous_secret_valid_until:
      k.previous_valid_until !== null && k.previous_valid_until > now ? iso(k.previous_valid_until) : null,
  };
}

/**
 * A YAML key's budget (usage.budgets) in the BudgetSpec shape: today's per-day/per-month form
 * converted, a `{limits: [...]}` form passed through.
 */
export function configBudgetOf(config: GatewayConfig, id: string): BudgetSpec | null {
  const b = config.usage.budgets[id] as (Record<string, unknown> & { limits?: unknown }) | undefined;
  if (!b) return null;
  if (Array.isArray(b.limits)) return { limits: b.limits as BudgetLimit[] };
  const limits: BudgetLimit[] = [];
  const n = (v: unknown): number | undefined => (typeof v === 'number' && v > 0 ? v : undefined);
  for (const period of ['day', 'month'] as const) {
    const usd = n(b[`usd_per_${period}`]);
    const tokens = n(b[`tokens_per_${period}`]);
    if (usd || tokens) limits.push({ period, ...(usd ? { usd } : {}), ...(tokens ? { tokens } : {}) });
  }
  return limits.length ? { limits } : null;
}

export function configKeyView(k: KeyConfig, config: GatewayConfig): KeyView {
  return {
    id: k.id,
    workspace: k.workspace,
    models: k.models ?? ['*'],
    limits: { rpm: k.limits?.rpm ?? 0, tpm: k.limits?.tpm ?? 0, concurrency: k.limits?.concurrency ?? 0 },
    budget: configBudgetOf(config, k.id),
    labels: {},
    expires_at: null,
    disabled: false,
    source: 'config',
    // The file has no such times; null rather than an invented one.
    created_at: null,
    updated_at: null,
    // Only a plain secret in the file has a hint; a `secret_sha256` key has none to give.
    secret_hint: k.secret !== undefined && k.secret.length >= 12 ? k.secret.slice(-4) : null,
    previous_secret_valid_until: null,
  };
}
