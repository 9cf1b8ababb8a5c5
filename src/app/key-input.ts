// Input of the keys admin API (docs/admin-api.md "Keys", /work ADMIN-API contract): every field
// bounded and checked before it reaches the store, a log line or a metric label; a bad field is a
// 400 naming it, an unknown field or query parameter a 400 as well (an operator's typo such as
// `limit.rpm` must not silently create an unlimited key).
import { budgetPeriods, type BudgetLimit, type BudgetSpec } from '../infra/config/budget-spec.ts';
import { GatewayError, invalid } from '../ir/gateway-error.ts';
import type { KeyChange, KeyLimits, NewKey } from '../services/auth/key-admin.ts';

export const idPattern = /^[A-Za-z0-9._-]{1,128}$/;
const labelKeyPattern = /^[A-Za-z0-9._/:-]{1,64}$/;
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const maxModels = 256;
const maxLabels = 32;
const maxBudgetLimits = 16;
/** 30 days: a longer grace is a second secret, not a rotation. */
export const maxGraceSeconds = 30 * 86_400;

/** Client text quoted in a message: bounded and without control characters. */
export const quoted = (s: string): string =>
  `'${s.slice(0, 64).replace(/[^\x20-\x7e]/g, '?')}${s.length > 64 ? '…' : ''}'`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function objectOf(v: unknown, param: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isObject(v)) throw invalid(param, `${param} must be a JSON object`);
  for (const k of Object.keys(v))
    if (!allowed.includes(k))
      throw invalid(
        param === 'body' ? k.slice(0, 64) : `${param}.${k.slice(0, 64)}`,
        `unknown field ${quoted(k)}${param === 'body' ? '' : ` in ${param}`}; known: ${allowed.join(', ')}`,
      );
  return v;
}

export function idOf(v: unknown, param: string): string {
  if (typeof v !== 'string' || !idPattern.test(v))
    throw invalid(param, `${param} must be 1 to 128 characters of A-Z a-z 0-9 . _ -`);
  return v;
}

function count(v: unknown, param: string, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    throw invalid(param, `${param} must be a whole number from 0 to ${max}`);
  return v;
}

function modelsOf(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > maxModels)
    throw invalid('models', `models must be an array of 1 to ${maxModels} model names or globs`);
  return v.map((m, i) => {
    if (typeof m !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(m))
      throw invalid(`models.${i}`, `models.${i} must be 1 to 256 visible ASCII characters`);
    return m;
  });
}

function limitsOf(v: unknown): Partial<KeyLimits> {
  const o = objectOf(v, 'limits', ['rpm', 'tpm', 'concurrency']);
  const out: Partial<KeyLimits> = {};
  if (o.rpm !== undefined) out.rpm = count(o.rpm, 'limits.rpm', 1e9);
  if (o.tpm !== undefined) out.tpm = count(o.tpm, 'limits.tpm', 1e12);
  if (o.concurrency !== undefined) out.concurrency = count(o.concurrency, 'limits.concurrency', 1e6);
  return out;
}

function budgetOf(v: unknown): BudgetSpec | null {
  if (v === null) return null;
  const o = objectOf(v, 'budget', ['limits']);
  if (!Array.isArray(o.limits) || o.limits.length > maxBudgetLimits)
    throw invalid('budget.limits', `budget.limits must be an array of at most ${maxBudgetLimits} limits`);
  const seen = new Set<string>();
  const limits = o.limits.map((l, i): BudgetLimit => {
    const p = `budget.limits.${i}`;
    const x = objectOf(l, p, ['period', 'usd', 'tokens', 'soft_ratio']);
    if (typeof x.period !== 'string' || !(budgetPeriods as readonly string[]).includes(x.period))
      throw invalid(`${p}.period`, `${p}.period must be one of ${budgetPeriods.join(', ')}`);
    if (seen.has(x.period)) throw invalid(`${p}.period`, `${p}.period '${x.period}' appears twice`);
    seen.add(x.period);
    const out: BudgetLimit = { period: x.period as BudgetLimit['period'] };
    if (x.usd !== undefined) {
      if (typeof x.usd !== 'number' || !Number.isFinite(x.usd) || x.usd < 0 || x.usd > 1e9)
        throw invalid(`${p}.usd`, `${p}.usd must be a number of dollars from 0 to 1e9`);
      out.usd = x.usd;
    }
    if (x.tokens !== undefined) out.tokens = count(x.tokens, `${p}.tokens`, 1e15);
    if (x.soft_ratio !== undefined) {
      if (typeof x.soft_ratio !== 'number' || !(x.soft_ratio > 0 && x.soft_ratio <= 1))
        throw invalid(`${p}.soft_ratio`, `${p}.soft_ratio must be a number above 0 and at most 1`);
      out.soft_ratio = x.soft_ratio;
    }
    if (!out.usd && !out.tokens) throw invalid(p, `${p} needs a usd or tokens amount above 0`);
    return out;
  });
  return { limits };
}

function expiryOf(v: unknown): number | null {
  if (v === null) return null;
  const t = typeof v === 'string' && v.length <= 64 && isoPattern.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t))
    throw invalid('expires_at', 'expires_at must be an ISO-8601 time with its zone (2026-12-31T23:59:59Z) or null');
  return t;
}

function labelsOf(v: unknown): Record<string, string> {
  if (!isObject(v)) throw invalid('labels', 'labels must be a JSON object of strings');
  const entries = Object.entries(v);
  if (entries.length > maxLabels) throw invalid('labels', `labels: at most ${maxLabels} pairs`);
  const out: Record<string, string> = {};
  for (const [k, val] of entries) {
    if (!labelKeyPattern.test(k))
      throw invalid('labels', `labels: the name ${quoted(k)} must be 1 to 64 characters of A-Z a-z 0-9 . _ - / :`);
    if (typeof val !== 'string' || val.length > 256 || /[\x00-\x1f\x7f]/.test(val))
      throw invalid(`labels.${k}`, `labels.${k} must be a string of at most 256 characters without control characters`);
    out[k] = val;
  }
  return out;
}

const changeFields = ['models', 'limits', 'budget', 'labels', 'expires_at'] as const;

function changeOf(o: Record<string, unknown>): KeyChange {
  const c: KeyChange = {};
  if (o.models !== undefined) c.models = modelsOf(o.models);
  if (o.limits !== undefined) c.limits = limitsOf(o.limits);
  if (o.budget !== undefined) c.budget = budgetOf(o.budget);
  if (o.labels !== undefined) c.labels = labelsOf(o.labels);
  if (o.expires_at !== undefined) c.expires_at = expiryOf(o.expires_at);
  return c;
}

/** POST /admin/keys. */
export function parseNewKey(body: unknown): NewKey {
  const o = objectOf(body, 'body', ['id', 'workspace', ...changeFields]);
  if (o.workspace === undefined) throw invalid('workspace', 'workspace is required');
  return {
    ...(o.id !== undefined ? { id: idOf(o.id, 'id') } : {}),
    workspace: idOf(o.workspace, 'workspace'),
    ...changeOf(o),
  };
}

/** PATCH /admin/keys/{id}. */
export function parseKeyChange(body: unknown): KeyChange {
  return changeOf(objectOf(body, 'body', changeFields));
}

/** POST /admin/keys/{id}/rotate: {grace_seconds?} (absent = 0, the old secret refused at once). */
export function parseRotation(body: unknown): number {
  const o = objectOf(body ?? {}, 'body', ['grace_seconds']);
  return o.grace_seconds === undefined ? 0 : count(o.grace_seconds, 'grace_seconds', maxGraceSeconds);
}

/** A body these routes take no fields from (disable, enable): empty or `{}`. */
export function parseEmpty(body: unknown): void {
  objectOf(body ?? {}, 'body', []);
}

/** Refuses query parameters a route does not know, and repeated ones. */
export function checkQuery(query: Record<string, unknown>, allowed: readonly string[]): void {
  for (const [k, v] of Object.entries(query)) {
    if (!allowed.includes(k))
      throw invalid(
        k.slice(0, 64),
        `unknown query parameter ${quoted(k)}${allowed.length ? `; known: ${allowed.join(', ')}` : ''}`,
      );
    if (typeof v !== 'string') throw invalid(k, `${k} is given more than once`);
  }
}

/** `?limit=` of a list: 1 to 500, 50 when absent. */
export function pageLimitOf(v: unknown): number {
  if (v === undefined) return 50;
  if (typeof v !== 'string' || !/^\d{1,3}$/.test(v) || +v < 1 || +v > 500)
    throw invalid('limit', 'limit must be a whole number from 1 to 500');
  return +v;
}

export const conflict = (message: string, param: string | null = null): GatewayError =>
  new GatewayError('invalid-request', message, { status: 409, param });
