// `node bench/responses-micro.ts`: CPU of what a non-streamed Responses-in request (D → anthropic)
// does below admission, step by step, in this process, for this checkout and (BENCH_BEFORE) an
// older one, alternating (issue #28, session 12): the body's parse and peek, the Responses session
// (prepareBody, prepareRequest, forRoute; `store: false` as the bench sends it, RESPONSES_MICRO_STORE=1
// for a stored one on the memory store), the decode, the tpm estimate, the Messages request's encode
// and serialization, the answer's parse and decode, the response object's encode and serialization.
// RESPONSES_MICRO_N (20000) requests a round, RESPONSES_MICRO_ROUNDS (6) rounds alternating; medians and
// after ÷ before per round to stderr.
import { buildMockAnswers } from './mock-bodies.ts';
import { beforeDir, repoRoot } from './processes.ts';
import { clientRequest } from './wire-requests.ts';

const n = Number(process.env.RESPONSES_MICRO_N ?? 20_000);
const stored = process.env.RESPONSES_MICRO_STORE === '1';
const rounds = Number(process.env.RESPONSES_MICRO_ROUNDS ?? 6);
const dirs = [repoRoot, ...(beforeDir ? [beforeDir] : [])];
const wire = clientRequest.responses('bench-anthropic', 'bench-key', false);
const sent = stored ? wire.body.replace('"store":false', '"store":true') : wire.body;
const answer = buildMockAnswers(20).messages.json.toString();
const route = { provider: 'anthropic', model: 'claude-bench', weight: 1, breakerModel: 'claude-bench' };

type Codec = Record<string, (...a: unknown[]) => unknown>;
type Session = {
  prepareBody(b: unknown): Promise<unknown>;
  prepareRequest(r: unknown): Promise<void>;
  forRoute(r: unknown, route: unknown, warn: unknown): unknown;
  completed(d: unknown): Promise<void>;
};

async function stepsOf(dir: string): Promise<{ name: string; request: () => Promise<void> }> {
  const { formatNamed } = (await import(`${dir}/src/infra/formats/formats.ts`)) as {
    formatNamed: (n: string) => { client: Codec; upstream: { codec: Codec }; conversation: unknown };
  };
  const { estimateTokens } = (await import(`${dir}/src/services/tokens/estimate-tokens.ts`)) as {
    estimateTokens: (r: unknown) => number;
  };
  const { ResponsesSession } = (await import(`${dir}/src/services/sessions/responses-session.ts`)) as {
    ResponsesSession: new (...a: unknown[]) => Session;
  };
  const { ResponseRepository } = (await import(`${dir}/src/services/sessions/response-repository.ts`)) as {
    ResponseRepository: new (s: unknown) => unknown;
  };
  const { MemoryStore } = (await import(`${dir}/src/infra/store/memory-store.ts`)) as {
    MemoryStore: new () => unknown;
  };
  const format = formatNamed('openai-responses');
  const client = format.client;
  const upstream = formatNamed('anthropic-messages').upstream.codec;
  const repo = new ResponseRepository(new MemoryStore());
  const inbound = { headers: wire.headers, params: {}, query: {}, streamByRoute: undefined };
  const warn = (): void => {};
  const request = async (): Promise<void> => {
    const raw = JSON.parse(sent) as unknown;
    client.peekRequest(raw, inbound);
    const session = new ResponsesSession(format.conversation, repo, 'bench', () => undefined);
    const body = await session.prepareBody(raw);
    const req = client.decodeRequest(body, inbound) as Record<string, unknown>;
    await session.prepareRequest(req);
    estimateTokens(req);
    const routed = session.forRoute(req, route, warn) as Record<string, unknown>;
    const enc = upstream.encodeRequest({ ...routed, stream: false }, 'claude-bench', warn) as { body: unknown };
    JSON.stringify(enc.body);
    const result = upstream.decodeResult(JSON.parse(answer)) as { parts: unknown[] };
    const out = client.encodeResult(result, req);
    await session.completed({ request: req, route, body: out, result });
    JSON.stringify(out);
  };
  return { name: dir === repoRoot ? 'this checkout' : `before (${dir})`, request };
}

/** µs of process CPU per request, 32 at a time as a loaded gateway interleaves them. */
async function perCall(count: number, step: () => Promise<void>): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < count; i += 32) await Promise.all(Array.from({ length: 32 }, step));
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / count;
}

const all = await Promise.all(dirs.map(stepsOf));
const results = new Map(all.map((s) => [s.name, [] as number[]]));
for (const s of all) await perCall(n / 4, s.request);
for (let round = 0; round < rounds; round++)
  for (const s of round % 2 === 0 ? all : [...all].reverse()) results.get(s.name)!.push(await perCall(n, s.request));
const med = (a: number[]): string => [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(2);
process.stderr.write(`| checkout | D → anthropic steps µs${stored ? ' (stored)' : ''} | rounds |\n|---|---:|---|\n`);
for (const [name, r] of results)
  process.stderr.write(`| ${name} | ${med(r)} | ${r.map((x) => x.toFixed(2)).join(' ')} |\n`);
if (all.length === 2) {
  const [a, b] = all.map((s) => results.get(s.name)!);
  const ratios = a.map((x, i) => x / b[i]);
  process.stderr.write(
    `after ÷ before per round ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${[...ratios].sort((x, y) => x - y)[ratios.length >> 1].toFixed(3)}, ${ratios.filter((x) => x < 1).length} of ${ratios.length} lower)\n`,
  );
}
