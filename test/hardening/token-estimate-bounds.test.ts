// Finding: with a key's tpm set, a 1 MB Messages body froze the server for 639 s: the prompt's
// token estimate ran gpt-tokenizer over all of it on the event loop, at a cost growing faster than
// the square of a piece's length. Now the tokenizer sees at most `tokenSample.chars` characters per
// request, in slices of at most `tokenSample.slice`; the assertions are on those bounds, not on time.
import t from 'tap';
import { countTokens } from 'gpt-tokenizer';
import Anthropic from '@anthropic-ai/sdk';
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { estimateTokens, tokenSample } from '../../src/services/tokens/estimate-tokens.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const request = (texts: string[]): ChatRequest =>
  ({
    model: 'm',
    system: [{ type: 'text', text: 'You are terse.' }],
    messages: texts.map((text, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', parts: [{ type: 'text', text }] })),
    tools: [],
    extensions: {},
  }) as unknown as ChatRequest;

/** A counter that records what reaches the tokenizer. */
function spy(): { count: (s: string) => number; chars: number; longest: number; calls: number } {
  const s = {
    chars: 0,
    longest: 0,
    calls: 0,
    count: (text: string): number => {
      s.chars += text.length;
      s.longest = Math.max(s.longest, text.length);
      s.calls++;
      return countTokens(text, { disallowedSpecial: new Set() });
    },
  };
  return s;
}

const prose =
  'The gateway translates each request into one intermediate form, routes it, and encodes the answer back. ';

for (const [name, texts] of [
  ['1 MB without a space', ['a'.repeat(1_000_000)]],
  ['1 MB of CJK', ['中文字'.repeat(350_000)]],
  ['many messages of prose', Array.from({ length: 400 }, () => prose.repeat(25))],
] as const) {
  t.test(`${name}: the tokenizer sees at most ${tokenSample.chars} characters, in short slices`, async (t) => {
    const s = spy();
    const estimate = estimateTokens(request([...texts]), s.count);
    t.ok(s.calls > 0, 'the tokenizer was used');
    t.ok(s.chars <= tokenSample.chars, `${s.chars} characters counted`);
    t.ok(s.longest <= tokenSample.slice, `longest slice ${s.longest}`);
    t.ok(estimate > 0);
  });
}

t.test('the sampled estimate of a large prose prompt is within 10% of the exact count', async (t) => {
  const texts = Array.from({ length: 200 }, (_, i) => `${i}: ${prose.repeat(20)}`);
  const exact = texts.reduce((n, x) => n + countTokens(x) + 4, countTokens('You are terse.'));
  const estimate = estimateTokens(request(texts));
  t.ok(Math.abs(estimate / exact - 1) < 0.1, `estimate ${estimate}, exact ${exact}`);
});

t.test('a small prompt is counted (almost) exactly', async (t) => {
  const text = prose.repeat(10);
  const exact = countTokens(text) + 4 + countTokens('You are terse.');
  const estimate = estimateTokens(request([text]));
  t.ok(Math.abs(estimate - exact) <= exact * 0.03, `estimate ${estimate}, exact ${exact}`);
});

t.test('special-token text is ordinary text to count, not an exception', async (t) => {
  t.ok(estimateTokens(request(['before <|endoftext|> after'])) > 0);
});

t.test(
  'through a running gateway: a key with tpm gets its 429 for a 1 MB single-word prompt (the estimate finishes)',
  async (t) => {
    const gw = await startInProcessGateway(
      testConfig({
        keys: [{ id: 'metered', secret: TEST_KEY, workspace: 'ws1', models: ['*'], limits: { tpm: 1000 } }],
      }),
    );
    t.teardown(() => gw.stop());
    const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    const err = await client.messages
      .create({ model: 'echo', max_tokens: 64, messages: [{ role: 'user', content: 'a'.repeat(1_000_000) }] })
      .catch((e: unknown) => e);
    t.type(err, Anthropic.RateLimitError);
    t.match((err as Error).message, /this request alone is about \d+ tokens/);
    const health = await fetch(`${gw.url}/healthz`);
    t.equal(health.status, 200);
  },
);
