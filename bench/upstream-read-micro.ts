// `node bench/upstream-read-micro.ts`: CPU of reading translated upstream answers in this process,
// the two ways of this tree in alternation (issue #28): undici's `request()` with its Readable body
// (`.json()`, and readSse's 'data' events for streams: what the translated path did before) against
// undici's dispatcher API with polygate's handler (src/infra/upstream/upstream-answer.ts: upstreamAnswer
// for JSON, upstreamStream into the push reader for streams). The upstream is a node:http server in
// a child process (its CPU not counted): Chat Completions answers, streams of MICRO_CHUNKS frames a
// millisecond apart (each its own read). Client process CPU (`process.cpuUsage`) per answer or chunk.
//
//   MICRO_MODE (both | json | stream)  MICRO_ROUNDS (8)  MICRO_CALLS (2000 JSON, 256 streams)
//   MICRO_CONCURRENCY (32)  MICRO_CHUNKS (100)
import { fork } from 'node:child_process';
import { Agent as UndiciAgent } from 'undici';
import { PushedSse, readSse } from '../src/infra/upstream/read-sse.ts';
import { upstreamAnswer, upstreamStream } from '../src/infra/upstream/upstream-answer.ts';
import { neverAborted, upstreamRequest, type UpstreamCall } from '../src/infra/upstream/upstream-request.ts';
import { upstreamCodecOf } from '../src/services/providers/upstream-codecs.ts';
import type { StreamEvent } from '../src/ir/stream-event.ts';
import { GatewayError } from '../src/ir/gateway-error.ts';
import { median } from './stats.ts';

const env = process.env;
const chunks = Number(env.MICRO_CHUNKS ?? 100);

if (process.argv[2] === 'upstream') {
  const { createServer } = await import('node:http');
  const json = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'word '.repeat(60) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 60, total_tokens: 72 },
  });
  const frame = (w: string): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: w }, finish_reason: null }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      if (req.url?.endsWith('/json')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(json);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < chunks; i++) {
        res.write(frame(`w${i} `));
        await new Promise((ok) => setTimeout(ok, 1));
      }
      res.end('data: [DONE]\n\n');
    });
  });
  server.keepAliveTimeout = 60_000;
  // A port taken or a listen refused: the parent is told by this process's exit, not left waiting.
  server.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as { port: number }).port));
} else {
  const child = fork(new URL(import.meta.url).pathname, ['upstream'], { env: { ...env, NODE_OPTIONS: '' } });
  const port = await new Promise<number>((ok, fail) => {
    child.once('message', (m) => ok(m as number));
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the upstream process exited (${code}) before listening`)));
  });
  const agent = new UndiciAgent({ keepAliveTimeout: 30_000 });
  const codec = upstreamCodecOf('openai-chat');
  const callTo = (path: string, signal: AbortSignal): UpstreamCall => ({
    provider: 'p',
    upstreamFormat: 'openai-chat',
    url: `http://127.0.0.1:${port}${path}`,
    dispatcher: agent,
    timeouts: { firstByteMs: 10_000, idleMs: 10_000 },
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m"}',
    signal,
  });
  const onError = (e: unknown): StreamEvent => ({ type: 'error', error: new GatewayError('upstream', String(e)) });
  const drain = async (events: AsyncIterable<StreamEvent>): Promise<void> => {
    for await (const _ of events);
  };
  const ways = {
    json: {
      readable: async () => void (await (await upstreamRequest(callTo('/json', neverAborted))).body.json()),
      dispatch: async () => void JSON.parse((await upstreamAnswer(callTo('/json', neverAborted))).text ?? ''),
    },
    stream: {
      readable: async () => {
        const res = await upstreamRequest(callTo('/sse', new AbortController().signal));
        await drain(readSse(res.body, codec.createStreamDecoder(), onError));
      },
      dispatch: async () => {
        const opened = await upstreamStream(
          callTo('/sse', new AbortController().signal),
          (control) => new PushedSse(control, codec.createStreamDecoder(), onError),
        );
        if ('reader' in opened) await drain(opened.reader);
      },
    },
  };
  const concurrency = Number(env.MICRO_CONCURRENCY ?? 32);
  const rounds = Number(env.MICRO_ROUNDS ?? 8);
  async function cpuPer(f: () => Promise<void>, calls: number, per: number): Promise<number> {
    const c0 = process.cpuUsage();
    let left = calls;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) await f();
      }),
    );
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / (calls * per);
  }
  const modes =
    env.MICRO_MODE && env.MICRO_MODE !== 'both' ? [env.MICRO_MODE as 'json' | 'stream'] : (['json', 'stream'] as const);
  for (const mode of modes) {
    const calls = Number(env.MICRO_CALLS ?? (mode === 'json' ? 2000 : 256));
    const per = mode === 'json' ? 1 : chunks;
    const { readable, dispatch } = ways[mode];
    await cpuPer(readable, calls, per);
    await cpuPer(dispatch, calls, per);
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // Alternating which goes first, so drift hits both alike.
      if (r % 2) {
        b.push(await cpuPer(dispatch, calls, per));
        a.push(await cpuPer(readable, calls, per));
      } else {
        a.push(await cpuPer(readable, calls, per));
        b.push(await cpuPer(dispatch, calls, per));
      }
    }
    const unit = mode === 'json' ? 'answer' : 'chunk';
    const row = (name: string, x: number[]): string =>
      `| ${mode} | ${name} | ${median(x).toFixed(2)} | ${x.map((v) => v.toFixed(1)).join(' ')} |`;
    console.log(`\n| mode | read | µs client CPU / ${unit} (median) | each round |\n|---|---|---:|---|`);
    console.log(row("request() + undici's Readable body", a));
    console.log(row('dispatch + handler', b));
    const ratios = b.map((v, i) => v / a[i]);
    console.log(
      `\n${mode}: dispatch ÷ Readable per round ${ratios.map((r) => r.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(3)}, ${ratios.filter((r) => r < 1).length} of ${rounds} lower)`,
    );
  }
  await agent.close();
  child.kill();
}
