// What a request is billed from what its upstream reported (src/services/usage/usage-meter.ts):
// the whole report when sane, else what came before the end plus the output streamed, else an
// estimate; a report out of bounds is never billed.
import t from 'tap';
import { maxReportedTokens, settleUsage, StreamMeter, usageProblem } from '../../src/services/usage/usage-meter.ts';

const input = (): number => 42;

t.test('a whole, sane report is billed as reported', async (t) => {
  const final = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2 };
  t.same(
    settleUsage({ final }, () => 0, input),
    { usage: final, source: 'reported' },
  );
});

t.test('a report of nothing counts as none', async (t) => {
  t.match(
    settleUsage({ final: { inputTokens: 0, outputTokens: 0 } }, () => 3, input),
    {
      usage: { inputTokens: 42, outputTokens: 3 },
      source: 'estimated',
    },
  );
});

t.test('out-of-bounds counts are refused with the reason, and estimated', async (t) => {
  for (const bad of [1e15, -1, 1.5, Number.NaN, Infinity, maxReportedTokens + 1]) {
    t.type(usageProblem({ inputTokens: 1, outputTokens: bad }), 'string', String(bad));
    const r = settleUsage({ final: { inputTokens: 10, outputTokens: bad } }, () => 7, input);
    t.match(r, { usage: { inputTokens: 42, outputTokens: 7 }, source: 'estimated', warning: /outputTokens/ });
  }
  t.equal(usageProblem({ inputTokens: maxReportedTokens, outputTokens: 0 }), undefined, 'the cap itself is allowed');
});

t.test('a stream that ended early: the reported prompt and the output streamed', async (t) => {
  const m = new StreamMeter();
  m.observe({
    type: 'start',
    id: 'x',
    model: 'm',
    usage: { inputTokens: 1000, outputTokens: 1, cacheReadTokens: 200 },
  });
  m.observe({ type: 'text-start', index: 0 });
  m.observe({ type: 'text-delta', index: 0, text: 'The quick brown fox jumps over the lazy dog. '.repeat(4) });
  const r = m.settle(input);
  t.equal(r.source, 'partial');
  t.match(r.usage, { inputTokens: 1000, cacheReadTokens: 200 });
  t.ok(r.usage.outputTokens >= 30 && r.usage.outputTokens <= 60, `${r.usage.outputTokens} output tokens`);
});

t.test('the finish event wins over what came before it', async (t) => {
  const m = new StreamMeter();
  m.observe({ type: 'start', id: 'x', model: 'm', usage: { inputTokens: 1000 } });
  m.observe({ type: 'finish', finish: { reason: 'stop', raw: 'stop' }, usage: { inputTokens: 1000, outputTokens: 9 } });
  t.same(m.settle(input), { usage: { inputTokens: 1000, outputTokens: 9 }, source: 'reported' });
});

t.test('long output is estimated from a bounded sample', async (t) => {
  const m = new StreamMeter();
  const piece = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. ';
  for (let i = 0; i < 20_000; i++) m.observe({ type: 'text-delta', index: 0, text: piece });
  const tokens = m.streamedTokens();
  // About 12 tokens a piece.
  t.ok(tokens > 150_000 && tokens < 350_000, `${tokens} tokens for ${piece.length * 20_000} characters`);
});
