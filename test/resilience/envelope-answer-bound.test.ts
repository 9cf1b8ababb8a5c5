// Issue #28, bounded work: `upstream.max_answer_bytes` (65536 here) bounds what Vertex, Bedrock and
// count_tokens answers make a request hold, as it bounds the plain HTTP providers'
// (test/resilience/answer-bound.test.ts), with the operator's value rather than the default. The
// upstreams are the Vertex, Bedrock and Anthropic emulators, some behind a fault proxy that holds
// or bloats an answer. Relayed in a cloud's envelope (a Messages client of Claude): a JSON answer
// past the bound is not held whole (its record is stored then, estimated) and reaches the client
// byte for byte; a stream event past it stops the usage tap (estimated). Translated: a JSON answer
// past it is a 502 naming the setting; an event past it fails the stream. Bedrock's event stream:
// a frame whose prelude claims more than the bound fails the stream as a cut one, its connection
// closed before the frame is read. An error body and a count answer past the bound are not read whole.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { bedrockApiKey, startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { readNotingFirstBytes, writeUpTo } from '../helpers/upstream-writes.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { ADMIN_TOKEN } from '../usage/usage-helpers.ts';

const BOUND = 65_536;
const [bedrock, vertex, anthropicUp] = await Promise.all([
  startBedrockUpstream(),
  startVertexUpstream(),
  startAnthropicUpstream(),
]);
t.teardown(() => Promise.all([bedrock.close(), vertex.close(), anthropicUp.close()]));

/** What the fault proxy does with the emulator's next answer (else it passes it on as it came). */
type Fault = (up: IncomingMessage, res: ServerResponse) => Promise<void>;
const faults: Fault[] = [];
/** How each answer through the fault proxy ended for the upstream: written in full, or its connection closed first. */
const ended: Promise<string>[] = [];

/** A proxy in front of an emulator, the emulator's answers passed on or changed by the next fault. */
async function faultProxy(target: string): Promise<string> {
  const server = createServer((req, res) => {
    ended.push(new Promise((ok) => res.on('close', () => ok(res.writableFinished ? 'finished' : 'closed'))));
    const up = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (ur) => {
      const fault = faults.shift();
      if (fault) return void fault(ur, res).catch(() => res.destroy());
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const [bedrockFront, anthropicFront, vertexFront] = await Promise.all([
  faultProxy(bedrock.url),
  faultProxy(anthropicUp.url),
  faultProxy(vertex.url),
]);
// Google's token endpoint is the Vertex emulator's, behind the fault proxy.
t.teardown(redirectGoogleTokens(`${vertexFront}/token`));

const brModel = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const vxModel = 'claude-sonnet-4-5@20250929';
const app = await startInProcessApp(
  t,
  testConfig({
    upstream: { max_answer_bytes: BOUND },
    providers: {
      br: { type: 'bedrock', region: 'us-east-1', base_url: bedrockFront, api_key: bedrockApiKey },
      vx: {
        type: 'vertex',
        project: vertex.project,
        region: 'us-east5',
        base_url: vertex.url,
        credentials_file: vertex.keyFile,
      },
      // Another Vertex provider: its own token, fetched at its first call.
      vt: {
        type: 'vertex',
        project: vertex.project,
        region: 'us-east5',
        base_url: vertex.url,
        credentials_file: vertex.keyFile,
      },
      an: { type: 'anthropic', base_url: anthropicFront, api_key: 'sk-ant-emulator-0123456789' },
    },
    models: modelRoutes({
      'claude-br': `br/${brModel}`,
      'claude-vx': `vx/${vxModel}`,
      'claude-an': 'an/claude-up-1',
      'claude-vt': `vt/${vxModel}`,
    }),
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50 },
  }),
);
const anthropic = new Anthropic({ baseURL: app.url, apiKey: TEST_KEY, maxRetries: 0 });
const openai = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'hello' }];
const tooLarge = (provider: string, what: string): RegExp =>
  new RegExp(`provider '${provider}' sent ${what} larger than upstream\\.max_answer_bytes \\(65536 bytes\\)`);
t.beforeEach(() => {
  faults.length = 0;
  ended.length = 0;
  bedrock.reset();
  vertex.reset();
  anthropicUp.reset();
});

/** The log line of the `n`th request (1-based) to `model`, once written. */
const logLine = (model: string, n = 1): Promise<Record<string, unknown>> =>
  waitFor(`log line ${n} of ${model}`, async () => app.logs().filter((l) => l.model === model && l.outcome)[n - 1]);
const logCount = (model: string): number => app.logs().filter((l) => l.model === model && l.outcome).length;
const bodyOf = async (up: IncomingMessage): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const c of up) parts.push(c as Buffer);
  return Buffer.concat(parts);
};

t.test('a relayed Bedrock JSON answer past the bound is not held whole: record stored, bytes go on', async (t) => {
  const n = logCount('claude-br') + 1;
  bedrock.script({ kind: 'text', text: 'a'.repeat(4 * BOUND) });
  let upstreamDone = false;
  let release = (): void => {};
  const released = new Promise<void>((ok) => (release = ok));
  let sent: Buffer | undefined;
  faults.push(async (up, res) => {
    sent = await bodyOf(up);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(sent.subarray(0, 3 * BOUND));
    // Held whole (before the fix) the client has no byte before the end: the upstream then goes on
    // after 5 s (a liveness bound for the test, not a timed assertion).
    await Promise.race([released, new Promise((ok) => setTimeout(ok, 5_000).unref())]);
    upstreamDone = true;
    res.end(sent.subarray(3 * BOUND));
  });
  const res = await fetch(`${app.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-br', max_tokens: 16, messages }),
  });
  t.equal(res.status, 200);
  const { bytes, doneAtFirstBytes } = await readNotingFirstBytes(res.body!, () => upstreamDone, release);
  t.equal(doneAtFirstBytes, false, 'the client had bytes before the upstream finished: not held whole');
  t.ok(sent && bytes.equals(sent), 'the whole body, byte for byte');
  const line = await logLine('claude-br', n);
  t.equal(line.outcome, 'ok');
  t.equal(line.tokens_source, 'estimated', 'billed as estimated: the tap did not copy the answer');
  t.ok(Number(line.tokens_out) >= BOUND / 8, 'its output estimated from its bytes');
});

t.test('a relayed Vertex stream with one event past the bound is relayed whole, billed as estimated', async (t) => {
  const n = logCount('claude-vx') + 1;
  const big = 'z'.repeat(4 * BOUND);
  vertex.script({ kind: 'text', text: big, chunks: [big] });
  const stream = await anthropic.messages.create({ model: 'claude-vx', max_tokens: 16, stream: true, messages });
  let text = '';
  let stopped = false;
  for await (const ev of stream) {
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
    if (ev.type === 'message_stop') stopped = true;
  }
  t.equal(text, big, 'the big event reached the client');
  t.ok(stopped, 'and the stream’s end');
  const line = await logLine('claude-vx', n);
  t.equal(line.outcome, 'ok');
  // Its input came reported before the big event; its output is estimated: the tap stopped there.
  t.equal(line.tokens_source, 'partial', 'the tap stopped at the event past the bound');
});

t.test('translated: a Vertex JSON answer past the bound is a 502 naming the setting', async (t) => {
  vertex.script({ kind: 'text', text: 'a'.repeat(4 * BOUND) });
  const e = await openai.chat.completions.create({ model: 'claude-vx', messages }).catch((x: unknown) => x);
  t.ok(e instanceof OpenAI.APIError, 'the Chat error');
  t.equal((e as InstanceType<typeof OpenAI.APIError>).status, 502);
  t.match((e as Error).message, tooLarge('vx', 'an answer'));
});

t.test('translated: a Bedrock JSON answer past the bound is a 502 naming the setting', async (t) => {
  bedrock.script({ kind: 'text', text: 'a'.repeat(4 * BOUND) });
  const e = await openai.chat.completions.create({ model: 'claude-br', messages }).catch((x: unknown) => x);
  t.equal((e as InstanceType<typeof OpenAI.APIError>).status, 502);
  t.match((e as Error).message, tooLarge('br', 'an answer'));
});

t.test('translated: a Vertex stream event past the bound fails the stream', async (t) => {
  const big = 'z'.repeat(4 * BOUND);
  vertex.script({ kind: 'text', text: `start${big}`, chunks: ['start', big] });
  const stream = await openai.chat.completions.create({ model: 'claude-vx', messages, stream: true });
  let text = '';
  const e = await (async () => {
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
  })().catch((x: unknown) => x);
  t.equal(text, 'start', 'what came before the big event');
  t.match(String((e as Error | undefined)?.message), tooLarge('vx', 'an SSE event'));
});

/** The first event-stream frame of the emulator's answer, then a frame claiming 8 MiB (its prelude whole and checked), then junk. */
const hugeFrame: Fault = async (up, res) => {
  const bytes = await bodyOf(up);
  const first = bytes.subarray(0, bytes.readUInt32BE(0));
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
  res.write(first);
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(8 * 1024 * 1024, 0);
  prelude.writeUInt32BE(0, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  res.write(prelude);
  await writeUpTo(res, 'j', 8 * 1024 * 1024);
  if (!res.destroyed) res.end();
};

t.test('a relayed Bedrock stream whose frame claims more than the bound fails as a cut stream', async (t) => {
  const n = logCount('claude-br') + 1;
  faults.push(hugeFrame);
  const stream = await anthropic.messages.create({ model: 'claude-br', max_tokens: 16, stream: true, messages });
  const seen: string[] = [];
  const e = await (async () => {
    for await (const ev of stream) seen.push(ev.type);
  })().catch((x: unknown) => x);
  t.same(seen, ['message_start'], 'the frame before');
  t.ok(e instanceof Anthropic.APIError, 'the Messages error event');
  t.match(String((e as Error | undefined)?.message), tooLarge('br', 'an event-stream frame'));
  t.equal(await ended[0], 'closed', 'the upstream call was ended, the frame not read');
  t.equal((await logLine('claude-br', n)).outcome, 'upstream_cut', 'billed as a cut stream');
});

t.test('a translated Bedrock stream whose frame claims more than the bound ends in an error event', async (t) => {
  faults.push(hugeFrame);
  const stream = await openai.chat.completions.create({ model: 'claude-br', messages, stream: true });
  const e = await (async () => {
    for await (const _ of stream);
  })().catch((x: unknown) => x);
  t.match(String((e as Error | undefined)?.message), tooLarge('br', 'an event-stream frame'));
  t.equal(await ended[0], 'closed', 'the upstream call was ended, the frame not read');
});

t.test('a Bedrock error body past the bound is not read whole', async (t) => {
  faults.push(async (up, res) => {
    up.resume();
    res.writeHead(500, { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalServerException' });
    res.write('{"message":"broke ');
    await writeUpTo(res, 'x', 64 * BOUND);
    if (!res.destroyed) res.end('"}');
  });
  const e = await anthropic.messages.create({ model: 'claude-br', max_tokens: 16, messages }).catch((x: unknown) => x);
  t.ok(e instanceof Anthropic.APIError, 'the Messages error');
  t.equal(await ended[0], 'closed', 'the upstream call was ended at the bound');
});

t.test('a count answer past the bound is not read: the count is estimated', async (t) => {
  faults.push(async (up, res) => {
    const answer = JSON.parse((await bodyOf(up)).toString()) as Record<string, unknown>;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...answer, padding: 'p'.repeat(2 * BOUND) }));
  });
  const { response } = await anthropic.messages.countTokens({ model: 'claude-an', messages }).withResponse();
  t.equal(response.headers.get('x-polygate-token-count'), 'estimate');
  t.ok(
    anthropicUp.requests.some((r) => r.path.startsWith('/v1/messages/count_tokens')),
    'the upstream was asked',
  );
});

t.test('a Google token answer past the bound is not read whole: the call fails on its credentials', async (t) => {
  // Every attempt of the library's (it retries a failed token call).
  const bloated: Fault = async (up, res) => {
    const answer = (await bodyOf(up)).toString();
    res.writeHead(200, { 'content-type': 'application/json' });
    // The emulator's token answer with a field that never ends (read whole, it would be a valid answer).
    res.write(`${answer.slice(0, -1)},"padding":"`);
    await writeUpTo(res, 'p', 64 * BOUND);
    if (!res.destroyed) res.end('"}');
  };
  faults.push(...Array.from({ length: 8 }, () => bloated));
  const e = await anthropic.messages.create({ model: 'claude-vt', max_tokens: 16, messages }).catch((x: unknown) => x);
  t.ok(e instanceof Anthropic.APIError, 'the Messages error');
  t.match((e as Error).message, /provider 'vt' could not get a Google access token/);
  const attempts = await Promise.all(ended);
  t.ok(
    attempts.length > 0 && attempts.every((a) => a === 'closed'),
    `each token call was ended at the bound (${attempts.length})`,
  );
});
