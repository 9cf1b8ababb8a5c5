// Issue #23, abandoned answers that are not streamed: a client that leaves while the upstream is
// still working on a JSON answer used to cancel the upstream call and be billed nothing, though
// the upstream had the prompt (and bills the operator for it and for what it generated). The
// upstream call now runs to its end (bounded by the route's timeouts) and the request is billed
// the usage the upstream reports (`reported`), on relayed and translated routes, for the four
// client formats. Each case: the upstream holds its answer, the client aborts, the gateway sees
// the client go (its in-flight gauge drops to 0), then the upstream answers. (A relay whose client
// left before the answer's headers was billed already: http-proxy does not cancel it. Those cases
// stay here as coverage; the mid-body relays, the translated routes and the slow upstream failed.)
// Also: the key's concurrency slot and a SIGTERM drain wait for the call the client left running.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import { startHoldingProxy } from '../helpers/holding-proxy.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { ADMIN_TOKEN, tokenNano, usage, type Row } from './usage-helpers.ts';

const fault = await startFaultUpstream();
t.teardown(() => fault.close());
// Responses and Gemini emulators, each behind a proxy that holds their answers (the relayed cases).
const responsesUp = await startOpenAIResponsesUpstream();
const geminiUp = await startGeminiUpstream();
const slowResponses = await startHoldingProxy(responsesUp.url);
const slowGemini = await startHoldingProxy(geminiUp.url);
t.teardown(async () => {
  await slowResponses.close();
  await slowGemini.close();
  await responsesUp.close();
  await geminiUp.close();
});
const price = { input: 3, output: 15 };
const anthropicModels = ['m-relay', 'm-relay-mid', 'c-via-anth', 'r-via-anth', 'g-via-anth'];
const chatModels = ['c-relay', 'c-relay-mid', 'c-cc', 'm-via-chat-slow', 'm-via-chat'];
const ONE_KEY = 'sk-test-one-at-a-time-0003';
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      faultChat: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up-fault', api: 'chat_completions' },
      faultAnth: { type: 'anthropic', base_url: fault.anthropicUrl, api_key: 'sk-up-anth' },
      slowResp: { type: 'openai', api: 'responses', base_url: slowResponses.url, api_key: 'sk-up-resp' },
      slowGem: { type: 'gemini', base_url: slowGemini.url, api_key: 'up-gemini' },
    },
    models: {
      'r-relay': { routes: [{ provider: 'slowResp', model: 'gpt-up' }] },
      'g-relay': { routes: [{ provider: 'slowGem', model: 'gemini-up' }] },
      ...Object.fromEntries(
        anthropicModels.map((m) => [m, { routes: [{ provider: 'faultAnth', model: 'claude-up' }] }]),
      ),
      ...Object.fromEntries(chatModels.map((m) => [m, { routes: [{ provider: 'faultChat', model: 'gpt-up' }] }])),
    },
    keys: [
      { id: 'test', secret: TEST_KEY, workspace: 'ws1', models: ['*'] },
      { id: 'one-at-a-time', secret: ONE_KEY, workspace: 'ws1', models: ['*'], limits: { concurrency: 1 } },
    ],
    admin: { token: ADMIN_TOKEN },
    usage: {
      flush_interval_ms: 50,
      prices: {
        models: Object.fromEntries([...anthropicModels, ...chatModels, 'r-relay', 'g-relay'].map((m) => [m, price])),
      },
    },
  }),
);
t.teardown(() => gw.stop());

const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url } });

const longText = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
/** The emulator's own count of the answer's tokens (test/emulators/fault-upstream.ts). */
const answerTokens = Math.ceil(longText.length / 4);
const prompt = 'a question the upstream takes its time to answer';

/** Requests the gateway is serving now: 0 once it has seen the client go. */
async function inFlight(url = gw.url): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('polygate_in_flight_requests{'))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/**
 * Starts a request the upstream holds, aborts it once the upstream has it and the gateway has seen
 * the client leave, lets the upstream answer, and returns the model's ledger row.
 */
async function abandon(
  t: Test,
  model: string,
  send: (signal: AbortSignal) => Promise<unknown>,
  opts: { midBody?: boolean; answerAfterMs?: number } = {},
): Promise<Row> {
  const { midBody } = opts;
  fault.reset();
  fault.script({ kind: 'ok', text: longText, inputTokens: 1000, pauseAfterChunks: midBody ? 1 : 0 });
  const ac = new AbortController();
  const sent = send(ac.signal);
  if (midBody) {
    // `send` resolves on the answer's headers (the SDK's raw response): half the body is on its way.
    const res = (await sent) as Response;
    t.equal(res.status, 200, 'the answer started');
    ac.abort();
    await t.rejects(res.text(), 'the client gave up in the middle of the answer');
  } else {
    await fault.waitForRequests(1);
    ac.abort();
    await t.rejects(sent, 'the client gave up before the answer');
  }
  await waitFor('the gateway to see the client go', async () => ((await inFlight()) === 0 ? true : undefined));
  if (opts.answerAfterMs) await new Promise((r) => setTimeout(r, opts.answerAfterMs));
  fault.resume();
  return waitFor(
    `the record of ${model}`,
    async () => {
      const row = (await usage(gw, `group_by=model&model=${model}&since=1d`)).rows[0];
      return row && row.requests >= 1 ? row : undefined;
    },
    10_000,
  );
}

function billedAsReported(t: Test, row: Row): void {
  t.equal(row.requests, 1, 'one request');
  t.equal(row.input_tokens, 1000, 'the prompt as the upstream reported it');
  t.equal(row.output_tokens, answerTokens, 'the output as the upstream reported it');
  t.match(row, { estimated: 0, partial: 0 }, 'marked reported');
  t.equal(row.cost_nano, tokenNano(1000, price.input) + tokenNano(answerTokens, price.output), 'at the price');
}

const user = [{ role: 'user' as const, content: prompt }];

/** Sends a request the upstream holds and leaves once the upstream has it; returns when the gateway at `url` has seen the client go. */
async function leaveHeldCall(t: Test, send: (signal: AbortSignal) => Promise<unknown>, url = gw.url): Promise<void> {
  fault.reset();
  fault.script({ kind: 'ok', text: longText, inputTokens: 1000, pauseAfterChunks: 0 });
  const ac = new AbortController();
  const sent = send(ac.signal);
  await fault.waitForRequests(1);
  ac.abort();
  await t.rejects(sent);
  await waitFor('the gateway to see the client go', async () => ((await inFlight(url)) === 0 ? true : undefined));
}

t.test('Messages, relayed: billed what the upstream reported after the client left', async (t) => {
  const row = await abandon(t, 'm-relay', (signal) =>
    anthropic.messages.create({ model: 'm-relay', max_tokens: 256, messages: user }, { signal }),
  );
  billedAsReported(t, row);
  await gw.matchLog(t, /"model":"m-relay"[^\n]*"outcome":"client_closed"/, 'the log line says the client left');
});

t.test('Chat, relayed', async (t) => {
  const row = await abandon(t, 'c-relay', (signal) =>
    openai.chat.completions.create({ model: 'c-relay', messages: user }, { signal }),
  );
  billedAsReported(t, row);
});

t.test('Messages, relayed, the client gone in the middle of the answer', async (t) => {
  const row = await abandon(
    t,
    'm-relay-mid',
    (signal) =>
      anthropic.messages.create({ model: 'm-relay-mid', max_tokens: 256, messages: user }, { signal }).asResponse(),
    { midBody: true },
  );
  billedAsReported(t, row);
  await gw.matchLog(t, /"model":"m-relay-mid"[^\n]*"outcome":"client_closed"/, 'the log line says the client left');
});

t.test('Chat, relayed, the client gone in the middle of the answer', async (t) => {
  const row = await abandon(
    t,
    'c-relay-mid',
    (signal) => openai.chat.completions.create({ model: 'c-relay-mid', messages: user }, { signal }).asResponse(),
    { midBody: true },
  );
  billedAsReported(t, row);
});

t.test('Messages translated to Chat', async (t) => {
  const row = await abandon(t, 'm-via-chat', (signal) =>
    anthropic.messages.create({ model: 'm-via-chat', max_tokens: 256, messages: user }, { signal }),
  );
  billedAsReported(t, row);
});

t.test('Chat translated to Messages', async (t) => {
  const row = await abandon(t, 'c-via-anth', (signal) =>
    openai.chat.completions.create({ model: 'c-via-anth', messages: user }, { signal }),
  );
  billedAsReported(t, row);
  await gw.matchLog(t, /"model":"c-via-anth"[^\n]*"outcome":"client_closed"/, 'the log line says the client left');
});

t.test('Responses translated to Messages', async (t) => {
  const row = await abandon(t, 'r-via-anth', (signal) =>
    openai.responses.create({ model: 'r-via-anth', input: prompt, store: false }, { signal }),
  );
  billedAsReported(t, row);
});

t.test('Gemini translated to Messages', async (t) => {
  const row = await abandon(t, 'g-via-anth', (signal) =>
    genai.models.generateContent({ model: 'g-via-anth', contents: prompt, config: { abortSignal: signal } }),
  );
  billedAsReported(t, row);
});

t.test('an upstream that answers long after the client left is still billed what it reports', async (t) => {
  // The gateway writes a request's record at the latest 10 s after its client left, when its
  // handler has not ended: here the handler waits on the upstream call, and the record on both.
  const row = await abandon(
    t,
    'm-via-chat-slow',
    (signal) => anthropic.messages.create({ model: 'm-via-chat-slow', max_tokens: 256, messages: user }, { signal }),
    { answerAfterMs: 10_500 },
  );
  billedAsReported(t, row);
});

/** A relayed request the proxy holds the answer of: the client leaves, the answer comes, the row. */
async function abandonHeld(
  t: Test,
  proxy: typeof slowResponses,
  model: string,
  send: (signal: AbortSignal) => Promise<unknown>,
): Promise<{ row: Row; answer: Record<string, unknown> }> {
  const ac = new AbortController();
  const sent = send(ac.signal);
  await waitFor('the upstream answer, held', async () => (proxy.held() === 1 ? true : undefined));
  ac.abort();
  await t.rejects(sent, 'the client gave up before the answer');
  await waitFor('the gateway to see the client go', async () => ((await inFlight()) === 0 ? true : undefined));
  proxy.release();
  const row = await waitFor(`the record of ${model}`, async () => {
    const r = (await usage(gw, `group_by=model&model=${model}&since=1d`)).rows[0];
    return r && r.requests >= 1 ? r : undefined;
  });
  return { row, answer: JSON.parse(proxy.answers.at(-1) ?? '{}') as Record<string, unknown> };
}

t.test('Responses, relayed: billed what the upstream reported after the client left', async (t) => {
  const { row, answer } = await abandonHeld(t, slowResponses, 'r-relay', (signal) =>
    openai.responses.create({ model: 'r-relay', input: prompt, store: false }, { signal }),
  );
  const u = answer.usage as { input_tokens: number; output_tokens: number };
  t.match(row, { requests: 1, input_tokens: u.input_tokens, output_tokens: u.output_tokens, estimated: 0, partial: 0 });
  t.equal(row.cost_nano, tokenNano(u.input_tokens, price.input) + tokenNano(u.output_tokens, price.output));
});

t.test('Gemini, relayed: billed what the upstream reported after the client left', async (t) => {
  const { row, answer } = await abandonHeld(t, slowGemini, 'g-relay', (signal) =>
    genai.models.generateContent({ model: 'g-relay', contents: prompt, config: { abortSignal: signal } }),
  );
  const u = answer.usageMetadata as { promptTokenCount: number; candidatesTokenCount: number };
  t.ok(u.promptTokenCount > 0, 'the upstream reported usage');
  t.match(row, {
    requests: 1,
    input_tokens: u.promptTokenCount,
    output_tokens: u.candidatesTokenCount,
    estimated: 0,
    partial: 0,
  });
});

t.test("a key's concurrency slot is held until the upstream call its client left has ended", async (t) => {
  // Else a client that aborts at once could keep any number of upstream calls running.
  const one = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: ONE_KEY, maxRetries: 0 });
  await leaveHeldCall(t, (signal) => one.chat.completions.create({ model: 'c-cc', messages: user }, { signal }));
  const refused = await one.chat.completions.create({ model: 'c-cc', messages: user }).catch((e: unknown) => e);
  t.match(refused, { status: 429 }, 'a second request is refused while the first one runs upstream');
  t.equal(fault.requests.length, 1, 'and made no upstream call');
  fault.resume();
  await waitFor('the first call to end', async () => {
    const row = (await usage(gw, 'group_by=model&model=c-cc&since=1d')).rows[0];
    return row && row.input_tokens === 1000 ? row : undefined;
  });
  const next = await waitFor('the slot to be free', async () =>
    one.chat.completions.create({ model: 'c-cc', messages: user }).catch(() => undefined),
  );
  t.equal(next.choices[0].message.content, prompt, 'served once the first call has ended');
});

t.test(
  'SIGTERM while an abandoned answer runs upstream: the drain waits for it and its record is stored',
  async (t) => {
    const db = join(mkdtempSync(join(tmpdir(), 'polygate-abandoned-drain-')), 'polygate.db');
    const config = testConfig({
      storage: { driver: 'sqlite', path: db },
      providers: { faultAnth: { type: 'anthropic', base_url: fault.anthropicUrl, api_key: 'sk-up-anth' } },
      models: { 'c-drain': { routes: [{ provider: 'faultAnth', model: 'claude-up' }] } },
      admin: { token: ADMIN_TOKEN },
      // Nothing is written by the timer: only the shutdown flush can save the record.
      usage: { flush_interval_ms: 60_000, prices: { models: { 'c-drain': price } } },
    });
    const draining = await startGateway(config);
    const client = new OpenAI({ baseURL: `${draining.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const send = (signal: AbortSignal) =>
      client.chat.completions.create({ model: 'c-drain', messages: user }, { signal });
    await leaveHeldCall(t, send, draining.url);
    // The gateway has seen the client go: only the upstream call keeps the request alive.
    const exit = new Promise<number | null>((resolve) => draining.process.once('exit', resolve));
    draining.process.kill('SIGTERM');
    await draining.matchLog(t, /draining requests in flight/, 'the drain began');
    fault.resume();
    t.equal(await exit, 0, 'exited cleanly');

    const again = await startGateway(config);
    t.teardown(() => again.stop());
    const row = (await usage(again, 'group_by=model&model=c-drain&since=1d')).rows[0];
    t.ok(row, 'the record is in the database');
    if (row) billedAsReported(t, row);
  },
);
