// `node bench/call-alloc-micro.ts`: bytes allocated per call of each step of a translated JSON call
// (E → openai-chat) below the handler, in this process, for this checkout and (BENCH_BEFORE) an older
// one (issue #28, session 13): the Messages decode, the hosted-tool policy, the Chat request's
// encode, the Chat answer's decode, the Messages answer's encode, a breaker's permit (board lookup,
// acquire, success) and the upstream codec's lookup. V8's sampling heap profiler at a 64-byte
// interval over CALL_ALLOC_N (50000) calls after as many of warm-up; deterministic where the
// end-to-end figure (bench/alloc-per-request.ts) moves by a few hundred bytes between runs.
import { Session } from 'node:inspector/promises';
import { buildMockAnswers } from './mock-bodies.ts';
import { beforeDir, repoRoot } from './processes.ts';
import { clientRequest } from './wire-requests.ts';

const n = Number(process.env.CALL_ALLOC_N ?? 50_000);
const dirs = [repoRoot, ...(beforeDir ? [beforeDir] : [])];
const wire = clientRequest.messages('bench-openai-chat', 'bench-key', false);
const answer = buildMockAnswers(20).chat.json.toString();
const session = new Session();
session.connect();

type Fn = (...a: unknown[]) => unknown;
type Node = { selfSize: number; children: Node[] };

/** Bytes allocated per call of `step`, the step warmed up first. */
async function bytesPerCall(step: () => void): Promise<number> {
  for (let i = 0; i < n; i++) step();
  await session.post('HeapProfiler.collectGarbage');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 64,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < n; i++) step();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
  const sum = (x: Node): number => x.children.reduce((s, c) => s + sum(c), x.selfSize);
  return sum(profile.head) / n;
}

async function stepsOf(dir: string): Promise<Record<string, () => void>> {
  const imp = (p: string): Promise<Record<string, Fn>> => import(`${dir}/${p}`) as Promise<Record<string, Fn>>;
  const { formatNamed } = (await imp('src/infra/formats/formats.ts')) as unknown as {
    formatNamed: (n: string) => { client: Record<string, Fn>; upstream: { codec: Record<string, Fn> } };
  };
  const { applyHostedToolPolicy } = await imp('src/families/chat/hosted-tool-policy.ts');
  const { upstreamCodecOf } = await imp('src/services/providers/upstream-codecs.ts');
  const { BreakerBoard } = (await imp('src/services/resilience/breaker-board.ts')) as unknown as {
    BreakerBoard: new () => {
      of(p: string, m: string): { acquire(c: unknown): { success(): void } | undefined };
    };
  };
  const client = formatNamed('anthropic-messages').client;
  const upstream = formatNamed('openai-chat').upstream.codec;
  const headers = { ...wire.headers, 'content-length': String(Buffer.byteLength(wire.body)) };
  const inbound = { headers, params: {}, query: {}, streamByRoute: undefined };
  const body = JSON.parse(wire.body) as unknown;
  const request = client.decodeRequest(body, inbound);
  const parsedAnswer = JSON.parse(answer) as unknown;
  const result = upstream.decodeResult(parsedAnswer);
  const warn = (): void => {};
  const board = new BreakerBoard();
  const breakerCfg = {
    consecutive_failures: 5,
    failure_ratio: 0.5,
    min_calls: 20,
    window_ms: 60_000,
    cooldown_ms: 30_000,
  };
  const noTools = new Set();
  return {
    'nothing (the loop itself)': () => {},
    'Messages decode': () => void client.decodeRequest(body, inbound),
    'hosted-tool policy': () => void applyHostedToolPolicy(request, 'bench', noTools, 'drop', warn),
    'Chat request encode': () => void upstream.encodeRequest(request, 'gpt-bench', warn),
    'Chat answer decode': () => void upstream.decodeResult(parsedAnswer),
    'Messages answer encode': () => void client.encodeResult(result, request),
    'breaker permit': () => board.of('bench', 'gpt-bench').acquire(breakerCfg)!.success(),
    'upstream codec lookup': () => void upstreamCodecOf('openai-chat'),
  };
}

const all = await Promise.all(dirs.map(async (d) => ({ dir: d, steps: await stepsOf(d) })));
const rows = new Map<string, string[]>();
for (const { steps } of all)
  for (const [name, step] of Object.entries(steps)) {
    const list = rows.get(name) ?? [];
    list.push((await bytesPerCall(step)).toFixed(0));
    rows.set(name, list);
  }
process.stdout.write(
  `| step | ${all.map((a) => (a.dir === repoRoot ? 'this checkout' : `before (${a.dir})`)).join(' | ')} |\n|---|${all.map(() => '---:').join('|')}|\n`,
);
for (const [name, list] of rows) process.stdout.write(`| ${name} (bytes per call) | ${list.join(' | ')} |\n`);
session.disconnect();
