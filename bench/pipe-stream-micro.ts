// `node bench/pipe-stream-micro.ts`: CPU time of polygate's own JS per translated chunk, in one
// process, for this tree and BENCH_BEFORE's in alternation (issue #28): the push reader
// (src/infra/upstream/read-sse.ts) fed the mock's Chat Completions chunks from a Readable, the
// Chat stream decoder, pipe-stream, the Messages stream encoder and the SSE writer into a
// response that only counts bytes. No sockets, no HTTP: the part of a chunk's CPU that is
// polygate's (bench/chunk-cpu.ts measures the whole, with the kernel's and Node's HTTP share, and
// cannot resolve a microsecond on a shared machine). Each upstream chunk is its own read, a
// `setImmediate` apart, STREAMS at a time.
//
//   MICRO_ROUNDS (12)  MICRO_STREAMS (50)  MICRO_CHUNKS (200)  BENCH_BEFORE=<older checkout>
import { Readable } from 'node:stream';
import { resolve } from 'node:path';
import { buildMockAnswers } from './mock-bodies.ts';
import { clientRequest } from './wire-requests.ts';
import { repoRoot } from './processes.ts';
import { median } from './stats.ts';
import { countingResponse } from './counting-response.ts';

const env = process.env;
const rounds = Number(env.MICRO_ROUNDS ?? 12);
const streams = Number(env.MICRO_STREAMS ?? 50);
const chunks = Number(env.MICRO_CHUNKS ?? 200);
const upstream = buildMockAnswers(chunks).chat.streamWithUsage!;
const body = JSON.parse(clientRequest.messages('bench', 'key', true).body) as unknown;

type Tree = { name: string; run: () => Promise<number> };

async function tree(name: string, dir: string): Promise<Tree> {
  const at = (p: string) => import(resolve(dir, p));
  const { pipeStream, firstEvent } = await at('src/families/chat/pipe-stream.ts');
  const { readSse } = await at('src/infra/upstream/read-sse.ts');
  const { anthropicMessages } = await at('adapters/anthropic-messages/index.ts');
  const { openaiChat } = await at('adapters/openai-chat/index.ts');
  const request = anthropicMessages.client.decodeRequest(body, {
    headers: { 'anthropic-version': '2023-06-01' },
    params: {},
    query: {},
  });
  const one = async (feed: (push: (b: Buffer | null) => void) => void): Promise<number> => {
    const up = new Readable({ read() {} });
    feed((b) => up.push(b));
    const events = readSse(up, openaiChat.upstream.codec.createStreamDecoder(), (error: unknown) => ({
      type: 'error',
      error,
    }));
    const { first, rest } = await firstEvent(events);
    const out = countingResponse();
    const encoder = anthropicMessages.client.createStreamEncoder(request);
    let seen = 0;
    await pipeStream(
      out.res,
      {},
      encoder,
      first,
      rest,
      () => seen++,
      async () => {},
    );
    return out.bytes();
  };
  const run = async (): Promise<number> => {
    const pushes: ((b: Buffer | null) => void)[] = [];
    const done = Array.from({ length: streams }, () => one((p) => pushes.push(p)));
    const t0 = process.cpuUsage();
    for (let i = 0; i <= upstream.length; i++) {
      await new Promise((r) => setImmediate(r));
      for (const p of pushes) p(i < upstream.length ? upstream[i] : null);
    }
    const bytes = await Promise.all(done);
    const t = process.cpuUsage(t0);
    if (bytes.some((b) => b !== bytes[0] || b === 0)) throw new Error(`${name}: streams differ in length`);
    return (t.user + t.system) / (streams * upstream.length);
  };
  return { name, run };
}

const trees = [await tree('this tree', repoRoot)];
if (env.BENCH_BEFORE) trees.push(await tree('before', env.BENCH_BEFORE));
for (const t of trees) for (let i = 0; i < 3; i++) await t.run();
const us = new Map(trees.map((t) => [t.name, [] as number[]]));
for (let r = 0; r < rounds; r++)
  for (const t of r % 2 === 0 ? trees : [...trees].reverse()) us.get(t.name)!.push(await t.run());
const lines = [
  `polygate's JS per translated chunk (\`node bench/pipe-stream-micro.ts\`): ${streams} streams of ${upstream.length} upstream reads, ${rounds} rounds alternating`,
  '',
  '| tree | µs CPU / chunk (median) | min | each round |',
  '|---|---:|---:|---|',
  ...[...us].map(
    ([n, xs]) =>
      `| ${n} | ${median(xs).toFixed(2)} | ${Math.min(...xs).toFixed(2)} | ${xs.map((x) => x.toFixed(2)).join(' ')} |`,
  ),
];
if (us.size === 2) {
  const [a, b] = [...us.values()];
  lines.push('', `pairs lower (this tree < before): ${a.filter((x, i) => x < b[i]).length} of ${a.length}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
