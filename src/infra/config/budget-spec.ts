// The shape of a budget wherever it is set (issue #25): on a key (the YAML's usage.budgets, or a
// key created at runtime), on a workspace, or on a provider. One type, so the admin API, the
// checks before a call and the console read the same thing.

/** Fixed windows in UTC: the hour, the day, the ISO week (from Monday), 30 days from the epoch, the calendar month. */
export const budgetPeriods = ['hour', 'day', 'week', '30d', 'month'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

export type BudgetLimit = {
  period: BudgetPeriod;
  /** USD spent in the period at most; absent or 0 = no USD limit. */
  usd?: number;
  /** Tokens (input + output) in the period at most; absent or 0 = no token limit. */
  tokens?: number;
  /** Fraction (0..1) of a limit at which a signed webhook is sent, once per period; absent = none. */
  soft_ratio?: number;
};

export type BudgetSpec = { limits: BudgetLimit[] };

export const budgetScopeKinds = ['key', 'workspace', 'provider'] as const;
export type BudgetScope = { kind: (typeof budgetScopeKinds)[number]; id: string };
