// Issue #23, item 4: a budget refusal is final until the budget resets. Each official SDK at its
// default retry settings gets the refusal once (the gateway sees one request, not the SDK's
// retries), as its own rate-limit error, with the reset time in the message and no Retry-After
// an SDK would sleep on until midnight.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig } from '../helpers/start-gateway.ts';
import { metricValue } from '../resilience/resilience-helpers.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';
import { rejection } from '../helpers/caught.ts';

const KEY = 'sk-budget-refusal-0001';
const gw = await startInProcessGateway(
  testConfig({
    keys: [{ id: 'spent', secret: KEY, workspace: 'ws1' }],
    // One request of the echo model takes the key past its token budget.
    usage: { budgets: { spent: { tokens_per_day: 1 } } },
  }),
);
t.teardown(() => gw.stop());

const refusals = (): Promise<number> =>
  metricValue(gw, 'polygate_budget_rejections_total', { scope: 'key', id: 'spent', budget: 'tokens_per_day' });

t.before(async () => {
  const first = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'use up the budget' }] }),
  });
  if (first.status !== 200) throw new Error(`the first request should be served: ${first.status}`);
});

t.test('the raw answer: 429, x-should-retry false, no Retry-After, the reset time in the body', async (t) => {
  const before = await refusals();
  const res = await postMessages(gw.url, { model: 'echo', max_tokens: 10, messages: userSays('hi') }, { key: KEY });
  t.equal(res.status, 429);
  t.equal(res.headers.get('x-should-retry'), 'false');
  t.equal(res.headers.get('retry-after'), null);
  const body = (await res.json()) as { type: string; error: { type: string; message: string } };
  t.equal(body.type, 'error');
  t.equal(body.error.type, 'rate_limit_error');
  t.match(
    body.error.message,
    /Budget used up for API key 'spent'.*tokens_per_day.*resets at \d{4}-\d\d-\d\dT00:00:00\.000Z/,
  );
  t.equal((await refusals()) - before, 1);
});

t.test('Anthropic SDK, default retries: RateLimitError after one request', async (t) => {
  const before = await refusals();
  const client = new Anthropic({ baseURL: gw.url, apiKey: KEY });
  const err = await rejection(
    client.messages.create({ model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  );
  t.ok(err instanceof Anthropic.RateLimitError, 'the SDK raises its rate-limit error');
  t.match((err as Error).message, /resets at/);
  t.equal((await refusals()) - before, 1, 'the gateway received the request once: the SDK did not retry');
});

t.test('OpenAI SDK, default retries: RateLimitError after one request', async (t) => {
  const before = await refusals();
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY });
  const err = await rejection(
    client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }),
  );
  t.ok(err instanceof OpenAI.RateLimitError, 'the SDK raises its rate-limit error');
  t.match((err as Error).message, /resets at/);
  t.equal((await refusals()) - before, 1, 'the gateway received the request once: the SDK did not retry');
});

t.test('Google GenAI SDK: RESOURCE_EXHAUSTED after one request', async (t) => {
  const before = await refusals();
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: gw.url } });
  const err = await rejection(ai.models.generateContent({ model: 'echo', contents: 'hi' }));
  t.match(err, { status: 429 });
  t.match((err as Error).message, /resets at/);
  t.equal((await refusals()) - before, 1);
});
