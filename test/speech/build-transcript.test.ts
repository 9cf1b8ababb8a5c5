// Utterances become segments with Whisper's statistics computed from what the recognizer knows.
import t from 'tap';
import { buildTranscript, compressionRatio } from '../../src/families/speech/build-transcript.ts';
import type { Utterance } from '../../src/families/speech/pocketsphinx.ts';

const utterances: Utterance[] = [
  {
    start: 0,
    end: 2,
    tokens: [
      { token: '<s>', start: 0, end: 0.5, p: 1 },
      { token: 'hello', start: 0.5, end: 1, p: Math.E ** -1 },
      { token: 'world(2)', start: 1, end: 1.5, p: Math.E ** -3 },
      { token: '</s>', start: 1.5, end: 2, p: 1 },
    ],
  },
  { start: 2.5, end: 3, tokens: [{ token: '<sil>', start: 2.5, end: 3, p: 1 }] },
  { start: 4, end: 5, tokens: [{ token: 'again', start: 4, end: 5, p: 0 }] },
];
const tokenize = (s: string): number[] => s.split(' ').map((w) => w.length);

t.test('one segment per utterance with words; silent utterances are not segments', async (t) => {
  const tr = buildTranscript('transcribe', utterances, 5.2, { temperature: 0.3, tokenize });
  t.equal(tr.text, 'hello world again');
  t.equal(tr.language, 'english');
  t.equal(tr.durationSeconds, 5.2);
  t.same(
    tr.segments.map((s) => [s.id, s.start, s.end, s.text]),
    [
      [0, 0, 2, 'hello world'],
      [1, 4, 5, 'again'],
    ],
  );
  t.same(tr.words, [
    { word: 'hello', start: 0.5, end: 1 },
    { word: 'world', start: 1, end: 1.5 },
    { word: 'again', start: 4, end: 5 },
  ]);
});

t.test('segment statistics', async (t) => {
  const [s0, s1] = buildTranscript('translate', utterances, 5.2, { temperature: 0.3, tokenize }).segments;
  t.equal(s0.avgLogprob, -2, 'mean log posterior of the words');
  t.equal(s0.noSpeechProb, 0.5, 'half the utterance is markers');
  t.equal(s0.temperature, 0.3);
  t.same(s0.tokens, [5, 5]);
  t.ok(Number.isFinite(s1.avgLogprob), 'a zero posterior keeps the log finite');
  t.equal(s0.compressionRatio, Math.round(compressionRatio('hello world') * 1e4) / 1e4);
});

t.test('compression ratio grows with repetition, as Whisper’s hallucination check expects', async (t) => {
  t.ok(compressionRatio('la '.repeat(100)) > 2.4);
  t.ok(compressionRatio('the quick brown fox') < 2.4);
  t.equal(compressionRatio(''), 0);
});
