// The windows a budget resets on (BudgetPeriod, src/infra/config/budget-spec.ts), all fixed in
// UTC: the hour, the day, the ISO week (from Monday 00:00), 30 days counted from the epoch, the
// calendar month. Each window is named by a bucket string that the stores key their running totals
// by (`h:2026-11-27T02`, `d:2026-11-27`, `w:2026-11-23`, `t:2026-11-04`, `m:2026-11`): every
// instance computes the same name for the same instant, with no shared clock but UTC.
import { budgetPeriods, type BudgetPeriod } from '../../infra/config/budget-spec.ts';

const hourMs = 3_600_000;
const dayMs = 86_400_000;
const thirtyDaysMs = 30 * dayMs;

export type Window = { bucket: string; start: number; end: number };

/** The window of `period` that holds the instant `ms`. */
export function windowOf(period: BudgetPeriod, ms: number): Window {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const dayStart = Date.UTC(y, mo, d.getUTCDate());
  switch (period) {
    case 'hour': {
      const start = ms - (((ms % hourMs) + hourMs) % hourMs);
      return { bucket: `h:${new Date(start).toISOString().slice(0, 13)}`, start, end: start + hourMs };
    }
    case 'day':
      return { bucket: `d:${iso(dayStart)}`, start: dayStart, end: dayStart + dayMs };
    case 'week': {
      // getUTCDay: Sunday 0 … Saturday 6; the ISO week starts on Monday.
      const start = dayStart - ((d.getUTCDay() + 6) % 7) * dayMs;
      return { bucket: `w:${iso(start)}`, start, end: start + 7 * dayMs };
    }
    case '30d': {
      const start = Math.floor(ms / thirtyDaysMs) * thirtyDaysMs;
      return { bucket: `t:${iso(start)}`, start, end: start + thirtyDaysMs };
    }
    case 'month': {
      const start = Date.UTC(y, mo, 1);
      return { bucket: `m:${iso(start).slice(0, 7)}`, start, end: Date.UTC(y, mo + 1, 1) };
    }
    default: {
      const never: never = period;
      return never;
    }
  }
}

const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Every period's window at one instant. */
export type Windows = Readonly<Record<BudgetPeriod, Window>>;

/**
 * The windows of the two hours last asked for: no window changes inside an hour, so every request
 * of an hour shares one object (budgets are checked on every request), and a record of the hour
 * before (ended across the boundary) does not make the next check build them again.
 */
type Cached = { start: number; end: number; windows: Windows };
let cached: Cached = { start: 0, end: 0, windows: windowsAt(0) };
let previous: Cached = cached;

function windowsAt(ms: number): Windows {
  const out = {} as Record<BudgetPeriod, Window>;
  for (const p of budgetPeriods) out[p] = windowOf(p, ms);
  return out;
}

export function windowsOf(ms: number): Windows {
  if (ms >= cached.start && ms < cached.end) return cached.windows;
  if (ms >= previous.start && ms < previous.end) return previous.windows;
  const windows = windowsAt(ms);
  previous = cached;
  cached = { start: windows.hour.start, end: windows.hour.end, windows };
  return windows;
}
