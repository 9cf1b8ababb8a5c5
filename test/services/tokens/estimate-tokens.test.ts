// The estimate's memo and its slice positions (src/services/tokens/estimate-tokens.ts): a request
// sent again, or a conversation resent with one more turn, sends only its new slices to the
// tokenizer. The bounds on what one estimate may tokenize are in
// test/hardening/token-estimate-bounds.test.ts.
//
// Error against an exact count (whole texts, gpt-tokenizer o200k), before (one ratio from 64 slices
// spread over all the text as one string, rounded up per text) and now (per-text offsets on a
// power-of-two stride, short texts counted from their start, rounded per message):
//   1 MB without a space      0.2 % → 0.0 %     1 MB of CJK                     1.5 % → 1.5 %
//   400 messages of prose     7.3 % → −2.0 %    200 numbered prose messages     4.2 % → 5.6 %
//   a small prompt (exact)    0.0 % → 0.0 %     the OpenAI OpenAPI YAML (3 MB) −1.6 % → 0.1 %
//   docs/*.md, 5 messages     3.3 % → 4.2 %     20,000 short messages           9.8 % → −2.1 %
// (the first five are test/hardening/token-estimate-bounds.test.ts's; 16 shapes of 2,000-20,000
// short messages, with and without tool calls: before −2 % to +27 %, now −2.5 % to +5 %).
import t from 'tap';
import { countTokens } from 'gpt-tokenizer';
import type { ChatRequest, Part } from '../../../src/ir/chat-request.ts';
import { estimateRequest, estimateTokens, tokenSample } from '../../../src/services/tokens/estimate-tokens.ts';

const plain = { disallowedSpecial: new Set<string>() };

/** Words that do not repeat in a pattern, so equal slices mean the same place in the same text. */
function writer(seed: number): (words: number) => string {
  let x = seed;
  const vocabulary = [
    'the',
    'gateway',
    'routes',
    'a',
    'request',
    'to',
    'its',
    'upstream',
    'and',
    'encodes',
    'answer',
    'back',
    'token',
    'limit',
    'with',
    'stream',
  ];
  return (words) =>
    Array.from({ length: words }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0; // xorshift32
      return vocabulary[x % vocabulary.length] + (x % 11 === 0 ? '.' : '');
    }).join(' ');
}

const request = (system: string, texts: string[]): ChatRequest =>
  ({
    model: 'm',
    system: [{ type: 'text', text: system }],
    messages: texts.map((text, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      // An assistant turn also calls a tool: short texts (a name, small arguments) beside long ones.
      parts: [
        { type: 'text', text },
        ...(i % 2 === 1
          ? [{ type: 'tool-call', id: `c${i}`, name: 'Read', args: `{"file_path":"/src/f${i}.ts"}` }]
          : []),
      ],
    })),
    tools: [],
    extensions: {},
  }) as unknown as ChatRequest;

/** A counter that logs every slice that reaches it (a fresh spy has a fresh memo). */
function spy(): { count: (s: string) => number; log: string[] } {
  const s = { log: [] as string[], count: (text: string): number => (s.log.push(text), countTokens(text, plain)) };
  return s;
}

for (const [mode, words] of [
  ['exact', 200],
  ['sampled', 8000],
] as const) {
  t.test(`${mode}: the same request estimated twice sends each distinct slice to the tokenizer once`, async (t) => {
    const write = writer(7);
    const r = request(write(words), [write(words / 4), write(words / 8), write(30)]);
    const s = spy();
    const first = estimateTokens(r, s.count);
    const seen = s.log.length;
    t.ok(seen > 0);
    t.equal(new Set(s.log).size, seen, 'no slice twice');
    t.equal(estimateTokens(r, s.count), first, 'the same estimate');
    t.equal(s.log.length, seen, 'nothing new reached the tokenizer');
  });
}

t.test('exact: a conversation growing by one message per turn tokenizes only the new message', async (t) => {
  const write = writer(11);
  const system = write(80);
  const texts: string[] = [];
  const s = spy();
  for (let turn = 0; turn < 40; turn++) {
    texts.push(write(turn % 3 === 0 ? 8 : 40));
    const r = request(system, texts);
    if (texts.reduce((n, x) => n + x.length + 30, system.length) > tokenSample.chars) break; // past the exact budget
    const before = s.log.length;
    estimateTokens(r, s.count);
    const fresh = s.log.slice(before);
    if (turn === 0) continue;
    const news = [
      texts[texts.length - 1],
      ...r.messages[texts.length - 1].parts.flatMap((p) => (p.type === 'tool-call' ? [p.name, p.args] : [])),
    ];
    t.ok(
      fresh.every((slice) => news.some((n) => n.includes(slice))),
      `turn ${turn}: ${fresh.length} slices, all from the new message`,
    );
  }
  t.equal(new Set(s.log).size, s.log.length, 'no slice was tokenized twice');
});

t.test(
  'sampled: a growing conversation tokenizes a few new slices per turn, more only when the stride doubles',
  async (t) => {
    const write = writer(13);
    const system = write(4500); // ~26 KB: past the budget from the first turn
    const texts: string[] = [];
    const s = spy();
    const perTurn: number[] = [];
    let chars = 0;
    for (let turn = 0; turn < 60; turn++) {
      texts.push(write(turn % 3 === 0 ? 30 : 250));
      const before = s.log.length;
      const r = request(system, texts);
      estimateTokens(r, s.count);
      t.ok(s.log.slice(before).reduce((n, x) => n + x.length, 0) <= tokenSample.chars, 'within the budget');
      if (turn > 0) perTurn.push(s.log.length - before);
      chars = texts.reduce((n, x) => n + x.length, system.length);
    }
    // ~26 KB to ~90 KB: the stride may double twice (log2 of 90 / 26 < 2).
    const many = perTurn.filter((n) => n > 4);
    t.ok(
      many.length <= 2,
      `turns with more than 4 new slices: ${many.join(', ') || 'none'} (${perTurn.join(' ')}; ${chars} chars at the end)`,
    );
    t.ok(Math.max(...many, 0) <= tokenSample.chars / tokenSample.slice, 'a doubling samples at most once more');
    t.equal(new Set(s.log).size, s.log.length, 'no slice was tokenized twice');
  },
);

t.test('sampled: many short messages are sampled, not all counted, and the estimate stays close', async (t) => {
  const write = writer(17);
  const texts = Array.from({ length: 20_000 }, () => write(6));
  const s = spy();
  const r = request('You are terse.', texts);
  const estimate = estimateRequest(r, s.count);
  t.ok(s.log.reduce((n, x) => n + x.length, 0) <= tokenSample.chars, 'within the budget');
  const exact = r.messages.reduce(
    (n, m) =>
      n +
      4 +
      m.parts.reduce(
        (k, p) =>
          k +
          (p.type === 'text'
            ? countTokens(p.text, plain)
            : p.type === 'tool-call'
              ? countTokens(p.name, plain) + countTokens(p.args, plain)
              : 0),
        0,
      ),
    countTokens('You are terse.', plain),
  );
  t.ok(Math.abs(estimate.total / exact - 1) < 0.1, `estimate ${estimate.total}, exact ${exact}`);
  t.equal(estimate.messages.length, texts.length, 'one estimate per message');
});

t.test('the default counter: a repeated estimate equals the first (memo hits count like the tokenizer)', async (t) => {
  const write = writer(19);
  for (const words of [150, 9000]) {
    const r = request(write(words), [write(40), write(200)]);
    const fresh = spy();
    const expected = estimateTokens(r, fresh.count);
    t.equal(estimateTokens(r), expected, `${words} words, first`);
    t.equal(estimateTokens(r), expected, `${words} words, again`);
  }
});

t.test(
  'estimateTokens (summed as the texts are walked) equals estimateRequest().total, exact and sampled',
  async (t) => {
    // Every kind of part, random sizes on both sides of the sample: the total path keeps no list of
    // texts while they fit the sample, and hands over to estimateRequest past it.
    let seed = 41;
    const rand = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 8) % n);
    const write = writer(23);
    const part = (): Part => {
      const text = (): string => write(1 + rand(rand(4) === 0 ? 1500 : 60));
      switch (rand(13)) {
        case 0:
          return { type: 'tool-call', id: 'c', name: 'Read', args: `{"q":"${text()}"}` };
        case 1:
          return { type: 'tool-result', callId: 'c', isError: false, content: [{ type: 'text', text: text() }] };
        case 2:
          return { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } } as Part;
        case 3:
          return { type: 'file', source: { kind: 'text', text: text() } } as Part;
        case 9:
          return { type: 'file', source: { kind: 'file-id', fileId: 'f' } } as Part;
        case 10:
          // A tool's result with an image and several texts: media inside a part.
          return {
            type: 'tool-result',
            callId: 'c',
            isError: false,
            content: [
              { type: 'text', text: text() },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/b.png' } },
              { type: 'text', text: text() },
            ],
          } as Part;
        case 11:
          return { type: 'code-result', outcome: 'ok', output: text() };
        case 12:
          return rand(2) === 0
            ? { type: 'reasoning', text: text(), origin: 'anthropic-messages' }
            : { type: 'refusal', text: text() };
        case 4:
          return { type: 'hosted-call', id: 'h', tool: 'web_search', input: { query: text() } };
        case 5:
          return {
            type: 'hosted-result',
            callId: 'h',
            tool: 'web_fetch',
            sources: [{ url: 'https://x', title: text() }],
          };
        case 6:
          return { type: 'code', language: 'python', code: text() };
        default:
          return { type: 'text', text: text() };
      }
    };
    let exact = 0;
    for (let i = 0; i < 300; i++) {
      const r = request(rand(3) === 0 ? '' : write(1 + rand(300)), []);
      r.messages = Array.from({ length: rand(12) }, (_, k) => ({
        role: k % 2 === 0 ? 'user' : 'assistant',
        parts: Array.from({ length: rand(4) }, part),
      })) as ChatRequest['messages'];
      const fresh = spy();
      const total = estimateTokens(r, fresh.count);
      t.equal(total, estimateRequest(r, fresh.count).total, `request ${i}`);
      t.equal(estimateTokens(r), total, `request ${i}, the default counter`);
      if (JSON.stringify(r).length < tokenSample.chars) exact++;
    }
    t.ok(exact > 50 && exact < 250, `both sides of the sample (${exact} of 300 small)`);
  },
);

t.test('estimateTokens equals estimateRequest().total at the sample budget and one character past it', async (t) => {
  // The character walk stops once past the budget: the boundary itself, split over the system
  // prompt, a text, a tool call's name and arguments, and a tool result, counts as fitting.
  const write = writer(5);
  for (const extra of [-1, 0, 1]) {
    const system = write(40);
    const name = 'Read';
    const result = write(30);
    const text = write(200);
    const used = system.length + name.length + result.length + text.length;
    const args = write(2000).slice(0, tokenSample.chars - used + extra);
    const r = request(system, [text]);
    r.messages.push({
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'c', name, args },
        { type: 'tool-result', callId: 'c', isError: false, content: [{ type: 'text', text: result }] },
      ],
    } as ChatRequest['messages'][number]);
    const fresh = spy();
    const total = estimateTokens(r, fresh.count);
    t.equal(total, estimateRequest(r, spy().count).total, `budget ${extra >= 0 ? '+' : ''}${extra}`);
    const counted = fresh.log.reduce((n, s) => n + s.length, 0);
    if (extra <= 0) t.equal(counted, tokenSample.chars + extra, `every character counted (${extra})`);
    else t.ok(counted < tokenSample.chars, `sampled past the budget (${counted} characters counted)`);
  }
});
