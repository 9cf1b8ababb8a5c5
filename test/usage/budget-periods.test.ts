// Issue #25, item 2: the windows a budget resets on (src/services/usage/budget-periods.ts), each
// period at its boundaries, with the instant given (the clock is the caller's): the last
// millisecond of a window and the first of the next are in different buckets, and a window's end
// is the reset time a refusal and /admin/budgets announce.
import t from 'tap';
import { windowOf, windowsOf } from '../../src/services/usage/budget-periods.ts';
import { budgetPeriods } from '../../src/infra/config/budget-spec.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();

t.test('hour: from :00 to the next :00, UTC', async (t) => {
  const w = windowOf('hour', at('2026-11-27T02:59:59.999Z'));
  t.same(
    [w.bucket, iso(w.start), iso(w.end)],
    ['h:2026-11-27T02', '2026-11-27T02:00:00.000Z', '2026-11-27T03:00:00.000Z'],
  );
  t.equal(
    windowOf('hour', at('2026-11-27T03:00:00.000Z')).bucket,
    'h:2026-11-27T03',
    'the next millisecond is the next hour',
  );
  t.equal(windowOf('hour', at('2026-12-31T23:30:00Z')).end, at('2027-01-01T00:00:00Z'), 'across a year');
});

t.test('day: the UTC day', async (t) => {
  const w = windowOf('day', at('2026-11-27T23:59:59.999Z'));
  t.same(
    [w.bucket, iso(w.start), iso(w.end)],
    ['d:2026-11-27', '2026-11-27T00:00:00.000Z', '2026-11-28T00:00:00.000Z'],
  );
  t.equal(windowOf('day', at('2026-11-28T00:00:00Z')).bucket, 'd:2026-11-28');
});

t.test('week: the ISO week, Monday 00:00 UTC to the next Monday', async (t) => {
  // 2026-11-23 is a Monday; 2026-11-29 a Sunday.
  for (const inside of ['2026-11-23T00:00:00.000Z', '2026-11-26T12:00:00Z', '2026-11-29T23:59:59.999Z']) {
    const w = windowOf('week', at(inside));
    t.same(
      [w.bucket, iso(w.start), iso(w.end)],
      ['w:2026-11-23', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
      inside,
    );
  }
  t.equal(
    windowOf('week', at('2026-11-22T23:59:59.999Z')).bucket,
    'w:2026-11-16',
    'the Sunday before is the week before',
  );
  t.equal(windowOf('week', at('2026-11-30T00:00:00Z')).bucket, 'w:2026-11-30');
  // A week across a year: 2026-12-28 (Monday) to 2027-01-04.
  t.equal(windowOf('week', at('2027-01-01T10:00:00Z')).bucket, 'w:2026-12-28');
  t.equal(windowOf('week', at('1970-01-01T00:00:00Z')).bucket, 'w:1969-12-29', 'the epoch was a Thursday');
});

t.test('30d: fixed 30-day windows counted from the epoch', async (t) => {
  const thirty = 30 * 86_400_000;
  const w = windowOf('30d', at('2026-11-27T02:00:00Z'));
  t.equal(w.start % thirty, 0, 'starts on a multiple of 30 days from the epoch');
  t.equal(w.end - w.start, thirty);
  t.ok(w.start <= at('2026-11-27T02:00:00Z') && at('2026-11-27T02:00:00Z') < w.end);
  t.equal(w.bucket, `t:${iso(w.start).slice(0, 10)}`);
  t.equal(windowOf('30d', w.end - 1).bucket, w.bucket, 'the last millisecond is in it');
  t.not(windowOf('30d', w.end).bucket, w.bucket, 'the next is not');
  t.equal(windowOf('30d', w.end).start, w.end);
});

t.test('month: the calendar month, UTC (28, 29, 30 and 31 days)', async (t) => {
  const w = windowOf('month', at('2026-11-30T23:59:59.999Z'));
  t.same([w.bucket, iso(w.start), iso(w.end)], ['m:2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z']);
  t.equal(windowOf('month', at('2026-12-01T00:00:00Z')).bucket, 'm:2026-12');
  t.equal(iso(windowOf('month', at('2028-02-15T00:00:00Z')).end), '2028-03-01T00:00:00.000Z', 'a leap February');
  t.equal(iso(windowOf('month', at('2026-12-31T23:00:00Z')).end), '2027-01-01T00:00:00.000Z', 'December');
});

t.test('windowsOf: every period, the same object within an hour, a new one past it', async (t) => {
  const a = windowsOf(at('2026-11-27T02:00:00Z'));
  t.same(Object.keys(a), [...budgetPeriods]);
  t.equal(windowsOf(at('2026-11-27T02:59:59.999Z')), a, 'cached for the hour');
  const b = windowsOf(at('2026-11-27T03:00:00Z'));
  t.not(b, a);
  t.equal(b.day.bucket, a.day.bucket);
  t.not(b.hour.bucket, a.hour.bucket);
  for (const p of budgetPeriods) t.same(b[p], windowOf(p, at('2026-11-27T03:00:00Z')), p);
});
