// `node bench/estimate-micro.ts`: CPU per prompt-token estimate (src/services/tokens/estimate-tokens.ts,
// what a key with `limits.tpm` costs every chat request), in process, because a few µs are lost in a
// load run's noise. Two requests, decoded by the Messages adapter as polygate decodes them:
//   - the bench's ~1 KB request (bench/wire-requests.ts),
//   - a Claude-Code-like one: a ~30 KB system prompt and 20 turns (thinking, text, a tool call, and
//     a tool result of source code each), resent whole every turn as Claude Code does.
// Three ways of calling, all through the default counter (its memo as a running gateway has it):
// `first` (text never seen before: each call's texts have their words shuffled with a seed of
// their own, so the same words reach the tokenizer in slices not seen before), `repeat` (the same
// request again), `next turn` (a conversation growing by one turn per call, turns 2-20, each
// estimated after the one before; each conversation shuffled with its own seed). ESTIMATE_BEFORE=DIR: also an older checkout's estimate
// (`git archive <commit> src adapters | tar -x -C DIR`, node_modules linked), in the same rounds,
// interleaved. ESTIMATE_ROUNDS (5): rounds; the median round is printed.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { countTokens } from 'gpt-tokenizer';
import { decodeMessagesRequest } from '../adapters/anthropic-messages/decode-messages-request.ts';
import type { ChatRequest, Message, Part } from '../src/ir/chat-request.ts';
import * as current from '../src/services/tokens/estimate-tokens.ts';
import { median } from './stats.ts';
import { clientRequest } from './wire-requests.ts';

type Estimator = { name: string; estimateTokens: (r: ChatRequest) => number };
type Json = Record<string, unknown>;

const root = new URL('..', import.meta.url).pathname;
const plain = { disallowedSpecial: new Set<string>() };
const decode = (body: Json): ChatRequest =>
  decodeMessagesRequest(body, { headers: { 'anthropic-version': '2023-06-01' }, params: {}, query: {} });

const small = JSON.parse(clientRequest.messages('m', 'k', false).body) as Json;

/** Real prose and code from this repository, so the tokenizer sees what it would in a real session. */
const docs = readdirSync(join(root, 'docs'))
  // Files only: docs/ has folders of its own now.
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => readFileSync(join(root, 'docs', f), 'utf8'))
  .join('\n');
const code = readdirSync(join(root, 'src/services/access'))
  .sort()
  .map((f) => readFileSync(join(root, 'src/services/access', f), 'utf8'))
  .join('\n');
const piece = (text: string, i: number, n: number): string =>
  text.slice((i * 7919) % (text.length - n), ((i * 7919) % (text.length - n)) + n);

function claudeCodeLike(turns: number): Json {
  const messages: Json[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: `<system-reminder>${piece(docs, 1, 600)}</system-reminder>` },
        { type: 'text', text: 'Find why the tpm reservation is slow and fix it.' },
      ],
    },
  ];
  for (let i = 0; i < turns; i++) {
    const id = `toolu_${String(i).padStart(4, '0')}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: piece(docs, 100 + i, 300), signature: 'EqQBCkYIBxgCKkD0signature==' },
        { type: 'text', text: piece(docs, 200 + i, 200) },
        {
          type: 'tool_use',
          id,
          name: 'Read',
          input: { file_path: `/work/src/services/access/file-${i}.ts`, offset: i * 40, limit: 60 },
        },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: piece(code, 300 + i, 1800) }],
    });
  }
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 32000,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: docs.slice(0, 30_000) },
    ],
    messages,
  };
}

/**
 * The request with each text's words shuffled (seeded by `seed` and the text's place, so two
 * prefixes of one conversation shuffled with one seed share their texts): unseen slices of the
 * same words, for about the same tokenizer work as the original.
 */
function shuffled(r: ChatRequest, seed: number): ChatRequest {
  let place = 0;
  const t = (text: string): string => {
    let x = (seed * 7919 + place++ * 104729) >>> 0 || 1;
    const words = text.split(' ');
    for (let i = words.length - 1; i > 0; i--) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0; // xorshift32
      const j = x % (i + 1);
      [words[i], words[j]] = [words[j], words[i]];
    }
    return words.join(' ');
  };
  const part = (p: Part): Part => {
    switch (p.type) {
      case 'text':
      case 'reasoning':
        return { ...p, text: t(p.text) };
      case 'tool-call':
        return { ...p, args: t(p.args) };
      case 'tool-result':
        return { ...p, content: p.content.map((c) => (c.type === 'text' ? { ...c, text: t(c.text) } : c)) };
      default:
        return p;
    }
  };
  return {
    ...r,
    system: r.system.map((p) => ({ ...p, text: t(p.text) })),
    messages: r.messages.map((m) => ({ ...m, parts: m.parts.map(part) }) as Message),
  };
}
let seeds = 0;

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

/** CPU µs per call of `f`, over `n` calls. */
function cpuUs(n: number, f: (i: number) => void): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f(i);
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}

type Case = { name: string; whole: ChatRequest; prefixes: ChatRequest[]; n: number };
const ccTurns = 20;
const cases: Case[] = [
  {
    name: '1 KB (bench/wire-requests.ts)',
    whole: decode(small),
    prefixes: [1, 2, 3].map((k) => decode({ ...small, messages: (small.messages as Json[]).slice(0, k) })),
    n: 4000,
  },
  {
    name: `Claude-Code-like (30 KB system, ${ccTurns} turns)`,
    whole: decode(claudeCodeLike(ccTurns)),
    prefixes: Array.from({ length: ccTurns }, (_, k) => decode(claudeCodeLike(k + 1))),
    n: 400,
  },
];

function measure(e: Estimator, c: Case): Record<string, number> {
  const fresh = Array.from({ length: c.n }, () => shuffled(c.whole, ++seeds));
  gc(); // the garbage of preparing is not counted
  const first = cpuUs(c.n, (i) => e.estimateTokens(fresh[i]));
  const same = shuffled(c.whole, ++seeds);
  e.estimateTokens(same);
  gc();
  const repeat = cpuUs(c.n, () => e.estimateTokens(same));
  // Conversations: turn 1 untimed, then each later turn after the one before.
  const sessions = Array.from({ length: Math.max(1, Math.floor(c.n / c.prefixes.length)) }, () => {
    const seed = ++seeds;
    return c.prefixes.map((r) => shuffled(r, seed));
  });
  let us = 0;
  gc();
  for (const turns of sessions) {
    e.estimateTokens(turns[0]);
    us += cpuUs(turns.length - 1, (i) => e.estimateTokens(turns[i + 1])) * (turns.length - 1);
  }
  return { first, repeat, 'next turn': us / (sessions.length * (c.prefixes.length - 1)) };
}

const estimators: Estimator[] = [{ name: 'after', estimateTokens: current.estimateTokens }];
const beforeDir = process.env.ESTIMATE_BEFORE;
if (beforeDir) {
  const before = (await import(join(beforeDir, 'src/services/tokens/estimate-tokens.ts'))) as typeof current;
  estimators.unshift({ name: 'before', estimateTokens: before.estimateTokens });
}
const rounds = Number(process.env.ESTIMATE_ROUNDS ?? 5);

const exact = (r: ChatRequest): number => {
  const texts = [
    ...r.system.map((p) => p.text),
    ...r.messages.flatMap((m) =>
      m.parts.flatMap((p) =>
        p.type === 'text' || p.type === 'reasoning'
          ? [p.text]
          : p.type === 'tool-call'
            ? [p.name, p.args]
            : p.type === 'tool-result'
              ? p.content.flatMap((x) => (x.type === 'text' ? [x.text] : []))
              : [],
      ),
    ),
  ];
  return texts.reduce((n, t) => n + countTokens(t, plain), 4 * r.messages.length);
};
for (const c of cases) {
  const chars = JSON.stringify(c.whole).length;
  console.log(
    `\n${c.name}: ~${Math.round(chars / 1000)} KB of IR JSON; exact count ${exact(c.whole)} tokens; ${estimators.map((e) => `${e.name} ${e.estimateTokens(c.whole)}`).join(', ')}`,
  );
  for (const e of estimators) measure(e, c); // JIT warm-up
  const runs = new Map<string, Record<string, number>[]>(estimators.map((e) => [e.name, []]));
  for (let r = 0; r < rounds; r++) for (const e of estimators) runs.get(e.name)!.push(measure(e, c));
  console.log(`  µs CPU per estimate (median of ${rounds} rounds)   first    repeat   next turn`);
  for (const e of estimators) {
    const m = runs.get(e.name)!;
    const col = (k: string): string =>
      median(m.map((x) => x[k]))
        .toFixed(1)
        .padStart(9);
    console.log(`  ${e.name.padEnd(42)}${col('first')}${col('repeat')}${col('next turn')}`);
  }
}
