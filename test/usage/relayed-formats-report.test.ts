// Issue #23 item 1, the other relayed formats: Messages, Responses and Gemini streams report usage
// without being asked (message_start / message_delta, response.completed, usageMetadata), so their
// relays need no rewriting. Checked here with each vendor's SDK: every relayed stream is recorded
// with the upstream's own counts (`reported`), none estimated.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import t from 'tap';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { ADMIN_TOKEN, usage } from './usage-helpers.ts';

t.test('relayed Messages, Responses and Gemini streams are billed from the usage they report', async (t) => {
  const { gw, up } = await gatewayWithEmulators(t, {
    upstreams: { anth: 'anthropic', resp: 'responses', gem: 'gemini' },
    models: modelRoutes({ 'm-relay': 'anth/claude-up', 'r-relay': 'resp/gpt-up', 'g-relay': 'gem/gemini-up' }),
    config: { admin: { token: ADMIN_TOKEN }, usage: { flush_interval_ms: 50 } },
  });
  const prompt = 'say something about usage';
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  await anthropic.messages
    .stream({ model: 'm-relay', max_tokens: 64, messages: [{ role: 'user', content: prompt }] })
    .finalMessage();
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  for await (const _ of await openai.responses.create({ model: 'r-relay', input: prompt, store: false, stream: true }));
  const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url } });
  for await (const _ of await ai.models.generateContentStream({ model: 'g-relay', contents: prompt }));

  for (const [model, emulator] of [
    ['m-relay', up.anth],
    ['r-relay', up.resp],
    ['g-relay', up.gem],
  ] as const) {
    t.equal(emulator.requests.length, 1, `${model}: one upstream call`);
    const row = await waitFor(`the record of ${model}`, async () => {
      const r = (await usage(gw, `group_by=model,provider&model=${model}&since=1d`)).rows[0];
      return r?.requests === 1 ? r : undefined;
    });
    t.match(row, { estimated: 0, partial: 0 }, `${model}: reported by the upstream`);
    t.ok(row.input_tokens > 0 && row.output_tokens > 0, `${model}: ${row.input_tokens} in, ${row.output_tokens} out`);
  }
  // The relays went as relays: the body each upstream got names the upstream model, nothing added.
  t.notOk(JSON.stringify(up.anth.requests[0].body).includes('stream_options'));
});

t.test('a relayed stream the upstream cuts midway is billed, in every format', async (t) => {
  const { gw, up } = await gatewayWithEmulators(t, {
    upstreams: { anth: 'anthropic', resp: 'responses', gem: 'gemini', oai: 'chat' },
    models: {
      'm-relay': { routes: [{ provider: 'anth', model: 'claude-up' }] },
      'r-relay': { routes: [{ provider: 'resp', model: 'gpt-up' }] },
      'g-relay': { routes: [{ provider: 'gem', model: 'gemini-up' }] },
      'c-relay': { routes: [{ provider: 'oai', model: 'gpt-up' }] },
    },
    config: { admin: { token: ADMIN_TOKEN }, usage: { flush_interval_ms: 50 } },
  });
  const text = 'the first words of an answer that the upstream never finishes';
  for (const e of Object.values(up)) e.script({ kind: 'cut', text });
  const prompt = 'a question whose answer is cut';
  const drain = async (run: () => Promise<unknown>): Promise<void> => {
    try {
      await run();
    } catch {
      // the stream's error event, as each SDK raises it
    }
  };
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  await drain(() =>
    anthropic.messages
      .stream({ model: 'm-relay', max_tokens: 64, messages: [{ role: 'user', content: prompt }] })
      .finalMessage(),
  );
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  await drain(async () => {
    for await (const _ of await openai.responses.create({
      model: 'r-relay',
      input: prompt,
      store: false,
      stream: true,
    }));
  });
  await drain(async () => {
    for await (const _ of await openai.chat.completions.create({
      model: 'c-relay',
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }));
  });
  const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url } });
  await drain(async () => {
    for await (const _ of await ai.models.generateContentStream({ model: 'g-relay', contents: prompt }));
  });
  // What each format reports before its end: Anthropic and Gemini the prompt (partial), Chat and
  // Responses nothing until the last event (estimated).
  for (const [model, kind] of [
    ['m-relay', 'partial'],
    ['g-relay', 'partial'],
    ['r-relay', 'estimated'],
    ['c-relay', 'estimated'],
  ] as const) {
    const row = await waitFor(`the record of ${model}`, async () => {
      const r = (await usage(gw, `group_by=model&model=${model}&since=1d`)).rows[0];
      return r?.requests === 1 ? r : undefined;
    });
    t.equal(row[kind], 1, `${model}: ${kind}`);
    t.ok(row.input_tokens > 0, `${model}: ${row.input_tokens} prompt tokens`);
    t.ok(row.output_tokens > 0, `${model}: ${row.output_tokens} output tokens streamed before the cut`);
  }
});
