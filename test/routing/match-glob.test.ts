import t from 'tap';
import { matchGlob } from '../../src/services/routing/match-glob.ts';
import { globMatcher } from '../../src/services/auth/key-ring.ts';

t.test('glob matching: ? is one character, * parts are captured leftmost, and hostile names stay linear', async (t) => {
  t.same(matchGlob('claude-*', 'claude-haiku-4-5'), ['haiku-4-5']);
  t.same(matchGlob('*-codex*', 'gpt-5-codex-mini'), ['gpt-5', '-mini']);
  t.same(matchGlob('a*b*c', 'axxbyybzzc'), ['xx', 'yybzz']);
  t.same(matchGlob('g?t-*', 'gpt-4o'), ['4o']);
  t.equal(matchGlob('g?t-*', 'gt-4o'), undefined);
  t.same(matchGlob('exact?', 'exacts'), []);
  t.equal(matchGlob('ab*ba', 'aba'), undefined, 'prefix and suffix may not overlap');
  t.same(matchGlob('*', ''), ['']);
  // A regular expression for this glob backtracks for minutes on a 5000-character name.
  const hostile = 'a'.repeat(5000);
  t.equal(matchGlob('*a*a*a*a*b', hostile), undefined);
});

t.test('key allow-lists use the same matcher (test/auth/key-ring.test.ts has their globs)', async (t) => {
  // Froze the process when allow-lists compiled to regular expressions (found with this test).
  t.notOk(
    globMatcher(['*a*a*a*a*b'])('a'.repeat(5000)),
    'a hostile model name against a many-star allow-list answers at once',
  );
});
