// With the sqlite driver, a response stored before a restart of polygate is continued after it.
import t from 'tap';
import OpenAI from 'openai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { conversationOf } from './conversation-texts.ts';

const chat = await startOpenAIChatUpstream();
t.teardown(() => chat.close());
const config = testConfig({
  storage: { driver: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'polygate-sqlite-')), 'polygate.db') },
  providers: { chat: { type: 'openai', base_url: chat.url, api_key: 'sk-up-c', api: 'chat_completions' } },
  models: { 'via-chat': { routes: [{ provider: 'chat', model: 'gpt-up' }] } },
});

t.test('a chain survives a restart (and a kill -9)', async (t) => {
  const first = await startGateway(config);
  const c1 = new OpenAI({ apiKey: TEST_KEY, baseURL: `${first.url}/v1`, maxRetries: 0 });
  const r1 = await c1.responses.create({ model: 'via-chat', input: 'before the restart' });
  t.equal(await first.stop('SIGKILL'), null, 'killed without a chance to flush');

  const second = await startGateway(config);
  t.teardown(() => second.stop());
  const c2 = new OpenAI({ apiKey: TEST_KEY, baseURL: `${second.url}/v1`, maxRetries: 0 });
  const got = await c2.responses.retrieve(r1.id);
  t.equal(got.output_text, 'before the restart');
  chat.reset();
  const r2 = await c2.responses.create({ model: 'via-chat', input: 'after the restart', previous_response_id: r1.id });
  t.equal(r2.output_text, 'after the restart');
  t.same(conversationOf('openai-chat', chat.requests[0].body as Record<string, any>), [
    { role: 'user', text: 'before the restart' },
    { role: 'assistant', text: 'before the restart' },
    { role: 'user', text: 'after the restart' },
  ]);
});
