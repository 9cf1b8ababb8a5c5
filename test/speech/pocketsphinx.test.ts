// Both pocketsphinx CLIs' outputs parse into the same utterances: word timings, posteriors, and
// the recognizer's markers told apart from words.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseContinuousOutput, parseJsonLinesOutput, wordOf } from '../../src/families/speech/pocketsphinx.ts';

const fixture = (f: string): string => readFileSync(join(import.meta.dirname, '../fixtures/openai-audio', f), 'utf8');

t.test('pocketsphinx_continuous -time yes: one utterance per <s> … </s>', async (t) => {
  const us = parseContinuousOutput(fixture('pocketsphinx-continuous.txt'));
  t.equal(us.length, 2);
  t.same(
    us[0].tokens.map((w) => w.token),
    ['<s>', 'hello', 'well', 'this', 'is', 'a', 'test', '</s>'],
  );
  t.same(us[0].tokens[1], { token: 'hello', start: 0.03, end: 0.28, p: 0.249983 });
  t.equal(us[1].start, 3.6);
  t.equal(us[1].end, 5.35);
  t.equal(us[1].tokens.filter((w) => wordOf(w.token)).length, 5, 'to(3) counts, [SPEECH] and markers do not');
});

t.test('pocketsphinx live (5.x JSON lines): the same utterances, end = begin + duration', async (t) => {
  const us = parseJsonLinesOutput(fixture('pocketsphinx-live.jsonl'));
  t.equal(us.length, 3);
  t.same(us[0].tokens[2], { token: 'world', start: 0.28, end: 0.58, p: 0.743 });
  t.equal(us[1].end, 5.35);
  t.same(us[2].tokens, [], 'an utterance with no words');
});

t.test('hypothesis lines and noise are skipped', async (t) => {
  t.same(parseContinuousOutput('hello there\nINFO: something 1 2\n\n'), []);
  t.same(parseJsonLinesOutput('not json\n{broken\n'), []);
});

t.test('markers and alternate pronunciations', async (t) => {
  for (const m of ['<s>', '</s>', '<sil>', '[NOISE]', '[SPEECH]', '++UM++']) t.equal(wordOf(m), undefined, m);
  t.equal(wordOf('to(3)'), 'to');
  t.equal(wordOf("don't"), "don't");
});
