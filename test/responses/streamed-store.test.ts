// Issue #28 (session 12): a Responses answer kept nowhere is not parsed back or normalized for the
// store, and one that is stored keeps everything it kept before: with the openai SDK against a
// running polygate, a streamed `store: false` answer is not retrievable, the same stream stored is,
// with its input items (ids, typed content), and its leading developer item is the system prompt
// of the turn that continues it.
import t from 'tap';
import OpenAI from 'openai';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { systemOf } from './conversation-texts.ts';

import type { Json } from '../helpers/json.ts';
const anth = await startAnthropicUpstream();
const gw = await startInProcessGateway(
  testConfig({
    providers: { anth: { type: 'anthropic', base_url: anth.url, api_key: 'sk-up-a' } },
    models: modelRoutes({ 'via-anthropic': 'anth/claude-up' }),
  }),
);
t.teardown(async () => {
  await gw.stop();
  await anth.close();
});
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

/** Streams one answer and returns its id from `response.completed`. */
async function streamed(store: boolean): Promise<string> {
  const stream = await client.responses.create({
    model: 'via-anthropic',
    input: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: `streamed, store ${store}` },
    ],
    store,
    stream: true,
  });
  let id = '';
  for await (const e of stream) if (e.type === 'response.completed') id = e.response.id;
  return id;
}

t.test('a streamed store: false answer is not retrievable', async (t) => {
  const id = await streamed(false);
  t.match(id, /^resp_[0-9a-f]{48}$/);
  t.type(await client.responses.retrieve(id).catch((e: unknown) => e), OpenAI.NotFoundError);
});

t.test('a streamed stored answer is retrievable with its input items, and continues', async (t) => {
  const id = await streamed(true);
  const kept = await client.responses.retrieve(id);
  t.equal(kept.status, 'completed');
  t.equal((kept as unknown as Json).store, true);
  const items = await client.responses.inputItems.list(id, { order: 'asc' });
  t.same(
    items.data.map((i) => [(i as Json).type, (i as Json).role, (i as Json).content]),
    [
      ['message', 'developer', [{ type: 'input_text', text: 'Be brief.' }]],
      ['message', 'user', [{ type: 'input_text', text: 'streamed, store true' }]],
    ],
  );
  t.ok(
    items.data.every((i) => typeof i.id === 'string' && i.id.startsWith('msg_')),
    'every input item stored has an id',
  );
  anth.reset();
  const next = await client.responses.create({ model: 'via-anthropic', input: 'and then?', previous_response_id: id });
  t.equal(next.status, 'completed');
  t.equal(
    systemOf('anthropic', anth.requests[0].body as Json),
    'Be brief.',
    'the first turn’s developer item is the system prompt again',
  );
});
