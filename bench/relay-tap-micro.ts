// `node bench/relay-tap-micro.ts`: CPU time of the relay's usage tap (src/families/chat/relay-usage-tap.ts)
// per relayed stream, in one process, for this tree and BENCH_BEFORE's in alternation (issue #28):
// the mock's Messages and Chat Completions streams (usage reported), each chunk fed as the upstream
// wrote it, then the end and the bill. No sockets: the tap's share of a relayed chunk, which
// bench/chunk-cpu.ts measures whole and cannot resolve below a microsecond on a shared machine.
//
//   MICRO_ROUNDS (8)  MICRO_STREAMS (20000)  MICRO_CHUNKS (20)  BENCH_BEFORE=<older checkout>
import { buildMockAnswers } from './mock-bodies.ts';
import { beforeDir, repoRoot } from './processes.ts';
import { median } from './stats.ts';

type Tap = {
  feed: (b: Buffer) => void;
  end: () => void;
  meter: () => { settle: (e: () => number) => unknown } | undefined;
};
type TapOf = (codec: unknown, contentType: string, status: number) => Tap;

const env = process.env;
const rounds = Number(env.MICRO_ROUNDS ?? 8);
const streams = Number(env.MICRO_STREAMS ?? 20_000);
const answers = buildMockAnswers(Number(env.MICRO_CHUNKS ?? 20));
const formats = {
  messages: answers.messages.stream,
  chat: answers.chat.streamWithUsage ?? answers.chat.stream,
};

async function tree(dir: string): Promise<{ tap: TapOf; messages: unknown; chat: unknown }> {
  return {
    tap: (await import(`${dir}/src/families/chat/relay-usage-tap.ts`)).usageTap as TapOf,
    messages: (await import(`${dir}/adapters/anthropic-messages/index.ts`)).anthropicUpstreamCodec,
    chat: (await import(`${dir}/adapters/openai-chat/index.ts`)).openaiChatUpstreamCodec,
  };
}

/** µs of CPU per stream through `t`'s tap. */
function run(t: Awaited<ReturnType<typeof tree>>, format: keyof typeof formats): number {
  const chunks = formats[format].map((b) => Buffer.from(b));
  const start = process.cpuUsage();
  for (let i = 0; i < streams; i++) {
    const tap = t.tap(t[format], 'text/event-stream', 200);
    for (const c of chunks) tap.feed(c);
    tap.end();
    tap.meter()?.settle(() => 1);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / streams;
}

const trees = [{ name: 'this tree', t: await tree(repoRoot) }];
if (beforeDir) trees.push({ name: `before (${beforeDir})`, t: await tree(beforeDir) });
const us = new Map<string, number[]>();
for (let r = 0; r < rounds; r++)
  for (const format of Object.keys(formats) as (keyof typeof formats)[])
    for (const { name, t } of r % 2 === 0 ? trees : [...trees].reverse()) {
      const key = `${format} · ${name}`;
      us.set(key, [...(us.get(key) ?? []), run(t, format)]);
    }
process.stdout.write(
  [
    `The relay's usage tap, µs CPU per ${formats.messages.length}-chunk stream (\`node bench/relay-tap-micro.ts\`), ${rounds} rounds of ${streams} streams, first round is warm-up`,
    '',
    '| stream · tree | median | each round |',
    '|---|---:|---|',
    ...[...us].map(([k, v]) => `| ${k} | ${median(v.slice(1)).toFixed(2)} | ${v.map((x) => x.toFixed(1)).join(' ')} |`),
    '',
  ].join('\n'),
);
