// `node bench/translate-micro.ts`: CPU of the steps a translated non-streamed request (E → openai-chat)
// takes below admission, in this process, for this checkout and (BENCH_BEFORE) an older one,
// alternating (issue #28, session 10): the handler's content-type checks (the body parser's and its
// own), its client-left signal, the routing peek and the Messages decode, the tpm estimate, the Chat
// request's encode and serialization, and the answer's parse, decode, encode and serialization.
// A tree without session 10's helpers (is-json-request.ts, client-left.ts) runs the code it had
// instead: two `ctx.is` and an AbortController with a `close` listener. TRANSLATE_MICRO_N (20000)
// iterations a round, 4 rounds; the median is printed to stderr. TRANSLATE_MICRO_INBOUND=gemini: Gemini in (C path).
import { EventEmitter } from 'node:events';
import Koa from 'koa';
import { buildMockAnswers } from './mock-bodies.ts';
import { beforeDir, repoRoot } from './processes.ts';
import { clientRequest } from './wire-requests.ts';

const n = Number(process.env.TRANSLATE_MICRO_N ?? 20_000);
const dirs = [repoRoot, ...(beforeDir ? [beforeDir] : [])];
// TRANSLATE_MICRO_INBOUND=gemini: the C path's client side (the bench's Gemini body, model from the path).
const inboundGemini = process.env.TRANSLATE_MICRO_INBOUND === 'gemini';
const wire = clientRequest[inboundGemini ? 'gemini' : 'messages']('bench-openai-chat', 'bench-key', false);
const answer = buildMockAnswers(20).chat.json.toString();
const app = new Koa();

/** µs of process CPU per call of `step`, called in turns of 32 as requests come. */
async function perCall(count: number, step: () => void): Promise<number> {
  let i = 0;
  const t0 = process.cpuUsage();
  await new Promise<void>((done) => {
    const turn = (): void => {
      for (let k = 0; k < 32 && i < count; k++, i++) step();
      if (i < count) setImmediate(turn);
      else done();
    };
    turn();
  });
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / count;
}

type Codec = Record<string, (...a: unknown[]) => unknown>;
type Steps = { name: string; handler: () => void; translate: () => void };

async function stepsOf(dir: string): Promise<Steps> {
  const tryImport = async (p: string): Promise<Record<string, unknown> | undefined> =>
    import(`${dir}/${p}`).catch(() => undefined) as Promise<Record<string, unknown> | undefined>;
  const isJson = (await tryImport('src/infra/http/is-json-request.ts'))?.isJsonRequest as
    ((ctx: Koa.Context, t: string[]) => boolean) | undefined;
  const ClientLeft = (await tryImport('src/families/chat/client-left.ts'))?.ClientLeft as
    (new (res: unknown) => { aborted: boolean }) | undefined;
  const jsonTypes = ['application/json', 'application/json-patch+json', 'application/vnd.api+json'];
  const headers = { ...wire.headers, 'content-length': String(Buffer.byteLength(wire.body)) };
  const req = { headers, url: wire.path, method: 'POST', socket: {} } as unknown as Koa.Context['req'];
  // What chat-handler does per request before the upstream call and after the answer.
  const handler = (): void => {
    const res = Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false });
    const ctx = app.createContext(req, res as unknown as Koa.Context['res']);
    let ok: boolean;
    if (isJson) ok = isJson(ctx, jsonTypes) && isJson(ctx, ['application/json']);
    else ok = Boolean(ctx.is(jsonTypes)) && Boolean(ctx.is('application/json'));
    let aborted: boolean;
    if (ClientLeft) {
      const left = new ClientLeft(res);
      aborted = left.aborted || left.aborted;
    } else {
      const abort = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      if (res.destroyed) abort.abort();
      aborted = abort.signal.aborted || abort.signal.aborted;
    }
    res.writableFinished = true;
    res.emit('close');
    if (!ok || aborted) throw new Error('bench: wrong answer');
  };
  const { formatNamed } = (await import(`${dir}/src/infra/formats/formats.ts`)) as {
    formatNamed: (n: string) => { client: Codec; upstream: { codec: Codec } };
  };
  const { estimateTokens } = (await import(`${dir}/src/services/tokens/estimate-tokens.ts`)) as {
    estimateTokens: (r: unknown) => number;
  };
  const client = formatNamed(inboundGemini ? 'gemini' : 'anthropic-messages').client;
  const upstream = formatNamed('openai-chat').upstream.codec;
  const inbound = {
    headers,
    params: inboundGemini ? { model: 'bench-openai-chat' } : {},
    query: {},
    streamByRoute: undefined,
  };
  const warn = (): void => {};
  const translate = (): void => {
    const body = JSON.parse(wire.body) as unknown;
    client.peekRequest(body, inbound);
    const request = client.decodeRequest(body, inbound) as Record<string, unknown>;
    estimateTokens(request);
    const enc = upstream.encodeRequest({ ...request, stream: false }, 'gpt-bench', warn) as { body: unknown };
    JSON.stringify(enc.body);
    const result = upstream.decodeResult(JSON.parse(answer));
    JSON.stringify(client.encodeResult(result, request));
  };
  return { name: dir === repoRoot ? 'this checkout' : `before (${dir})`, handler, translate };
}

const all = await Promise.all(dirs.map(stepsOf));
const results = new Map(all.map((s) => [s.name, { handler: [] as number[], translate: [] as number[] }]));
for (let round = 0; round < 4; round++)
  for (const s of round % 2 === 0 ? all : [...all].reverse()) {
    const r = results.get(s.name)!;
    r.handler.push(await perCall(n * 5, s.handler));
    r.translate.push(await perCall(n, s.translate));
  }
const med = (a: number[]): string => [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(2);
process.stderr.write(
  '| checkout | content-type checks + client-left µs | parse, peek, decode, estimate, encode, answer µs | rounds (translate) |\n|---|---:|---:|---|\n',
);
for (const [name, r] of results)
  process.stderr.write(
    `| ${name} | ${med(r.handler)} | ${med(r.translate)} | ${r.translate.map((x) => x.toFixed(2)).join(' ')} |\n`,
  );
