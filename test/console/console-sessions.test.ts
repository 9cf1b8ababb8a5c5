// The session board and the recent-outcomes tally on a fake clock: a session ends at its
// lifetime and when the admin token it was made with is no longer the one in force; failures
// older than five minutes leave the error rate.
import t from 'tap';
import { ConsoleSessions, sessionLifetimeMs } from '../../src/app/console/console-sessions.ts';
import { RecentOutcomes } from '../../src/services/resilience/recent-outcomes.ts';

t.test('a session lives its lifetime, for the token it was made with only', async (t) => {
  let now = 1_000_000;
  const board = new ConsoleSessions(() => now);
  const { id, view } = board.create('token-a');
  t.equal(view.expires_at, new Date(now + sessionLifetimeMs).toISOString());
  t.equal(board.find(id, 'token-a')?.csrf, view.csrf_token);
  t.equal(board.find(id, 'token-b'), undefined, 'a reload that changed admin.token ends it');
  t.equal(board.find(id, 'token-a'), undefined, 'and it stays ended');
  const second = board.create('token-a');
  now += sessionLifetimeMs - 1;
  t.ok(board.find(second.id, 'token-a'), 'alive a millisecond before its end');
  now += 1;
  t.equal(board.find(second.id, 'token-a'), undefined, 'ended at its lifetime');
  t.equal(board.size, 0, 'an ended session is dropped, not kept');
  t.equal(board.find('x'.repeat(1000), 'token-a'), undefined, 'an oversized id is not looked up');
  t.equal(board.find(undefined, 'token-a'), undefined);
});

t.test('recent outcomes: five minutes of calls and failures', async (t) => {
  let now = 0;
  const recent = new RecentOutcomes(() => now);
  recent.record(true);
  recent.record(false);
  now = 60_000;
  recent.record(true);
  t.same(recent.totals(), { calls: 3, failures: 2, window_seconds: 300 });
  now = 5 * 60_000 + 1;
  t.same(recent.totals(), { calls: 1, failures: 1, window_seconds: 300 }, 'the first minute aged out');
  now = 20 * 60_000;
  t.same(recent.totals(), { calls: 0, failures: 0, window_seconds: 300 });
});
