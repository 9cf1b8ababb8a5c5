// Per-key limits against a running polygate: rpm, tpm (estimated before the request) and
// concurrency, each refused with 429 and Retry-After in every family's own error shape.
import t, { type Test } from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig } from '../helpers/start-gateway.ts';
import { postFamilyTurn, postJson, type ChatFamily } from '../helpers/post-family.ts';
import { metricValue, waitUntil } from '../resilience/resilience-helpers.ts';

import type { Json } from '../helpers/json.ts';
const RPM_KEY = 'sk-limits-rpm-0001';
const TPM_KEY = 'sk-limits-tpm-0001';
const CC_KEY = 'sk-limits-cc-00001';
const FREE_KEY = 'sk-limits-free-001';
const TPM2_KEY = 'sk-limits-tpm2-001';

const fault = await startFaultUpstream();
const gw = await startInProcessGateway(
  testConfig({
    keys: [
      { id: 'rpm-key', secret: RPM_KEY, workspace: 'w', limits: { rpm: 3 } },
      { id: 'tpm-key', secret: TPM_KEY, workspace: 'w', limits: { tpm: 60 } },
      { id: 'cc-key', secret: CC_KEY, workspace: 'w', limits: { concurrency: 1 } },
      { id: 'tpm2-key', secret: TPM2_KEY, workspace: 'w', limits: { tpm: 60 } },
      { id: 'free-key', secret: FREE_KEY, workspace: 'w', limits: { rpm: 0, tpm: 0, concurrency: 0 } },
    ],
    providers: { flaky: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' } },
    models: {
      held: { routes: [{ provider: 'flaky', model: 'up-held', timeouts: { idle_ms: 60_000 } }] },
      wordy: { routes: [{ provider: 'flaky', model: 'up-wordy' }] },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await fault.close();
});

type Family = ChatFamily | 'audio' | 'tune';
const chatFamilies: Family[] = ['messages', 'chat', 'responses', 'gemini'];
const allFamilies: Family[] = [...chatFamilies, 'audio', 'tune'];

function call(
  family: Family,
  key: string,
  text = 'hello',
  signal?: AbortSignal,
  model = 'echo',
  stream = false,
): Promise<Response> {
  const bearer = { authorization: `Bearer ${key}` };
  switch (family) {
    case 'audio':
      return postJson(`${gw.url}/v1/audio/speech`, bearer, { model: 'tts-1', input: text, voice: 'alloy' }, signal);
    case 'tune':
      return postJson(`${gw.url}/tune/submit/music`, bearer, { gpt_description_prompt: text, mv: 'tune-v3-0' }, signal);
    default:
      return postFamilyTurn(gw.url, family, { key, model, text, stream, maxTokens: 16, signal });
  }
}

/** A 429 in the family's own shape, with Retry-After, naming the limit. */
async function assertLimited(t: Test, family: Family, res: Response, limit: string): Promise<void> {
  t.equal(res.status, 429, `${family}: 429`);
  t.ok(Number(res.headers.get('retry-after')) >= 1, `${family}: retry-after`);
  const body = (await res.json()) as Json;
  const named = new RegExp(`\\(${limit}\\)`);
  switch (family) {
    case 'messages':
      t.same([body.type, body.error.type], ['error', 'rate_limit_error']);
      t.match(body.error.message, named);
      return;
    case 'chat':
    case 'responses':
    case 'audio':
      t.same(
        [body.error.type, body.error.code],
        ['rate_limit_error', 'rate_limit_exceeded'],
        `${family}: OpenAI error shape`,
      );
      t.match(body.error.message, named);
      return;
    case 'gemini':
      t.same([body.error.code, body.error.status], [429, 'RESOURCE_EXHAUSTED']);
      t.match(body.error.message, named);
      return;
    case 'tune':
      t.same([body.code, body.data], ['rate_limited', null], 'family A envelope');
      t.match(body.message, named);
      return;
  }
}

t.test('rpm: the fourth request within a minute is refused, in every family', async (t) => {
  for (const f of ['messages', 'chat', 'gemini'] as const)
    t.equal((await call(f, RPM_KEY)).status, 200, `${f} within the limit`);
  for (const f of allFamilies) await assertLimited(t, f, await call(f, RPM_KEY), 'rpm');
  t.equal(
    await metricValue(gw, 'polygate_rate_limited_requests_total', { key: 'rpm-key', limit: 'rpm' }),
    allFamilies.length,
  );
  t.equal((await call('chat', FREE_KEY)).status, 200, 'other keys are not affected');
  const read = await fetch(`${gw.url}/tune/fetch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${RPM_KEY}`, 'content-type': 'application/json' },
    body: '{"ids":["x"]}',
  });
  t.equal(read.status, 200, 'task queries do not count');
  // Token counting is a read in every format that has it: a key past its rpm still counts.
  const counts: [string, Record<string, string>, Json][] = [
    [
      '/v1/messages/count_tokens',
      { 'x-api-key': RPM_KEY, 'anthropic-version': '2023-06-01' },
      { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
    ],
    ['/v1/responses/input_tokens', { authorization: `Bearer ${RPM_KEY}` }, { model: 'echo', input: 'hi' }],
    [
      '/v1beta/models/echo:countTokens',
      { 'x-goog-api-key': RPM_KEY },
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    ],
  ];
  for (const [path, headers, body] of counts) {
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    t.equal(res.status, 200, `${path} does not count against rpm`);
  }
});

t.test('tpm: a prompt whose estimate exceeds the budget is refused, in every chat family', async (t) => {
  t.equal((await call('chat', TPM_KEY, 'a short prompt')).status, 200, 'a small prompt fits');
  const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
  for (const f of chatFamilies) await assertLimited(t, f, await call(f, TPM_KEY, long), 'tpm');
  t.equal((await call('messages', TPM_KEY, 'still fits')).status, 200, 'refused requests took nothing from the budget');
});

t.test('tpm: the estimate is corrected by the usage the upstream reports', async (t) => {
  // The prompt is a few tokens; the upstream reports 5 + 50 (a 200-character answer).
  fault.script({ kind: 'ok', text: 'x'.repeat(200) });
  t.equal((await call('chat', TPM2_KEY, 'tell me a lot', undefined, 'wordy')).status, 200);
  // Estimated alone, the two prompts would fit in 60 by far; with the reported usage they do not.
  await assertLimited(t, 'chat', await call('chat', TPM2_KEY, 'and more', undefined, 'wordy'), 'tpm');
});

t.test('concurrency: a second request while one is in flight is refused, in every family, until it ends', async (t) => {
  fault.script({ kind: 'stall-body', afterChunks: 2 });
  const holder = new AbortController();
  const open = await call('chat', CC_KEY, 'hold the slot', holder.signal, 'held', true);
  t.equal(open.status, 200, 'a stream holds the slot');
  for (const f of allFamilies) await assertLimited(t, f, await call(f, CC_KEY), 'concurrency');
  holder.abort();
  await open.body?.cancel().catch(() => {});
  await waitUntil('the slot to be released', async () =>
    (await call('chat', CC_KEY)).status === 200 ? true : undefined,
  );
  t.pass('after the stream ended, requests pass again');
});
