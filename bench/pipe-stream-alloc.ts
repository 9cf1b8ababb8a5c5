// `node bench/pipe-stream-alloc.ts`: bytes polygate's own JS allocates per translated stream, in
// one process, per direction (issue #28, goal 4): the mock's upstream stream (bench/mock-bodies.ts)
// pushed read by read into the push reader (src/infra/upstream/read-sse.ts), the upstream format's
// stream decoder, pipe-stream, the client format's stream encoder and the SSE writer, into a
// response that only counts bytes, as bench/pipe-stream-micro.ts runs them. V8's sampling heap
// profiler (64-byte interval, collected objects included) over STREAMS × ROUNDS streams; this tree
// and BENCH_BEFORE's, each in a child process of its own. No sockets and no HTTP, so Node's and
// undici's share of a real stream (bench/alloc-per-request.ts counts it) is not in it; the
// Readable's own per-read work is, alike in both trees.
//
//   PIPE_ALLOC_STREAMS (400)  PIPE_ALLOC_ROUNDS (5)  PIPE_ALLOC_CHUNKS (20)  PIPE_ALLOC_TOP (0: allocators to name)
//   PIPE_ALLOC_ONLY (a direction, e.g. "chat → messages")  BENCH_BEFORE=<older checkout>
//   PIPE_ALLOC_WHOLE=1: each answer in one upstream read (as bench/alloc-per-request.ts's zero-latency mock's arrive)
import { execFileSync } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { Readable } from 'node:stream';
import { buildMockAnswers } from './mock-bodies.ts';
import { repoRoot } from './processes.ts';
import { clientRequest, type WireFormat } from './wire-requests.ts';
import { codecsOf, countingResponse, moduleOf } from './counting-response.ts';

const env = process.env;
const streams = Number(env.PIPE_ALLOC_STREAMS ?? 400);
const rounds = Number(env.PIPE_ALLOC_ROUNDS ?? 5);
const chunks = Number(env.PIPE_ALLOC_CHUNKS ?? 20);
const topN = Number(env.PIPE_ALLOC_TOP ?? 0);

/** upstream → client, as the bench's paths name them (E = Messages, D = Responses, C = Gemini clients). */
const directions: { up: WireFormat; client: WireFormat; path: string }[] = [
  { up: 'chat', client: 'messages', path: 'E → openai-chat' },
  { up: 'messages', client: 'chat', path: 'chat → anthropic' },
  { up: 'messages', client: 'responses', path: 'D → anthropic' },
  { up: 'chat', client: 'gemini', path: 'C → openai-chat' },
  { up: 'gemini', client: 'chat', path: 'chat → gemini' },
];

type ProfileNode = {
  selfSize: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
};

/** One round: `streams` streams of one direction of one tree, fed read by read, side by side. */
async function streamRound(dir: string, up: WireFormat, client: WireFormat): Promise<() => Promise<void>> {
  const { pipeStream, firstEvent } = await moduleOf(dir, 'src/families/chat/pipe-stream.ts');
  const { readSse } = await moduleOf(dir, 'src/infra/upstream/read-sse.ts');
  const formats = await codecsOf(dir);
  const answer = buildMockAnswers(chunks)[up];
  const chunked = answer.streamWithUsage ?? answer.stream;
  // PIPE_ALLOC_WHOLE=1: the whole answer in one read, as a zero-latency upstream's reaches the gateway.
  const reads = env.PIPE_ALLOC_WHOLE === '1' ? [Buffer.concat(chunked)] : chunked;
  const request = formats[client].client.decodeRequest(JSON.parse(clientRequest[client]('bench', 'key', true).body), {
    headers: { 'anthropic-version': '2023-06-01' },
    params: { model: 'bench', action: 'streamGenerateContent' },
    query: { alt: 'sse' },
  });
  const one = async (pushes: ((b: Buffer | null) => void)[]): Promise<void> => {
    const body = new Readable({ read() {} });
    pushes.push((b) => body.push(b));
    const events = readSse(body, formats[up].upstream.codec.createStreamDecoder(), (error: unknown) => ({
      type: 'error',
      error,
    }));
    const { first, rest } = await firstEvent(events);
    const { res } = countingResponse();
    const encoder = formats[client].client.createStreamEncoder(request);
    await pipeStream(
      res,
      {},
      encoder,
      first,
      rest,
      () => {},
      async () => {},
    );
  };
  const run = async (): Promise<void> => {
    const pushes: ((b: Buffer | null) => void)[] = [];
    const done = Array.from({ length: streams }, () => one(pushes));
    for (let i = 0; i <= reads.length; i++) {
      await new Promise((r) => setImmediate(r));
      for (const p of pushes) p(i < reads.length ? reads[i] : null);
    }
    await Promise.all(done);
  };
  return run;
}

/** In the child: one direction of one tree, KB per stream and the top allocators on stdout (JSON). */
async function measure(dir: string, up: WireFormat, client: WireFormat): Promise<{ kb: number; top: string[] }> {
  const run = await streamRound(dir, up, client);
  for (let i = 0; i < 3; i++) await run();
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 64,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < rounds; i++) await run();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
  const by = new Map<string, number>();
  const walk = (n: ProfileNode): number => {
    const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src|adapters|bench)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
    by.set(key, (by.get(key) ?? 0) + n.selfSize);
    return n.children.reduce((s, c) => s + walk(c), n.selfSize);
  };
  const per = streams * rounds;
  const kb = walk(profile.head) / per / 1024;
  const top = [...by]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([k, v]) => `\`${k}\` ${(v / per / 1024).toFixed(1)}`);
  return { kb, top };
}

if (env.PIPE_ALLOC_CHILD) {
  const [dir, up, client] = env.PIPE_ALLOC_CHILD.split('|');
  process.stdout.write(JSON.stringify(await measure(dir, up as WireFormat, client as WireFormat)));
} else {
  const trees = [
    { name: 'this tree', dir: repoRoot },
    ...(env.BENCH_BEFORE ? [{ name: 'before', dir: env.BENCH_BEFORE }] : []),
  ];
  const lines = [
    `Bytes polygate's JS allocates per translated stream (\`node bench/pipe-stream-alloc.ts\`): in process, ${streams} streams × ${rounds} rounds of the mock's ${chunks}-chunk answer, ${env.PIPE_ALLOC_WHOLE === '1' ? 'the whole answer in one upstream read' : 'one upstream read per chunk'}, V8 sampling heap profiler (64-byte interval, collected objects included)`,
    '',
    `| path (upstream → client format) | ${trees.map((t) => `KB / stream, ${t.name}`).join(' | ')} |${trees.length === 2 ? ' after ÷ before |' : ''}`,
    `|---|${trees.map(() => '---:|').join('')}${trees.length === 2 ? '---:|' : ''}`,
  ];
  const tops: string[] = [];
  for (const d of directions) {
    const name = `${d.path} (${d.up} → ${d.client})`;
    if (env.PIPE_ALLOC_ONLY && !name.includes(env.PIPE_ALLOC_ONLY)) continue;
    const kbs = trees.map((t) => {
      const out = execFileSync(process.execPath, [import.meta.filename], {
        env: { ...env, PIPE_ALLOC_CHILD: `${t.dir}|${d.up}|${d.client}` },
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      const r = JSON.parse(out) as { kb: number; top: string[] };
      if (r.top.length > 0) tops.push(`${name}, ${t.name}: ${r.top.join(', ')}`);
      return r.kb;
    });
    lines.push(
      `| ${name} | ${kbs.map((k) => k.toFixed(1)).join(' | ')} |${kbs.length === 2 ? ` ${(kbs[0] / kbs[1]).toFixed(2)} |` : ''}`,
    );
    process.stderr.write(`${lines[lines.length - 1]}\n`);
  }
  if (tops.length > 0) lines.push('', ...tops);
  process.stdout.write(`${lines.join('\n')}\n`);
}
