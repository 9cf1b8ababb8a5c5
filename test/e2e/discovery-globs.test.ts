// Model names the operator does not write one by one: the names today's coding CLIs send by
// default (a haiku-class Claude name for background work, Gemini CLI's routing and default
// models, a codex model) reach the provider a glob entry names under the client's own name, and
// with the default config and no keys the standby echo route answers them.
import t from 'tap';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, repoRoot, startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';

t.test('glob entries route CLI default names upstream under the client name', async (t) => {
  const [anth, gem] = await Promise.all([startAnthropicUpstream(), startGeminiUpstream()]);
  t.teardown(() => Promise.all([anth.close(), gem.close()]));
  const gw = await startInProcessGateway(
    testConfig({
      providers: {
        anthropic: { type: 'anthropic', base_url: anth.url, api_key: 'sk-up' },
        gemini: { type: 'gemini', base_url: gem.url, api_key: 'up' },
      },
      models: {
        'claude-*': { routes: [{ provider: 'anthropic' }, { provider: 'echo', model: 'echo', standby: true }] },
        'claude-3-*': { routes: [{ provider: 'anthropic', model: 'legacy-{1}' }] },
        'gemini-*': { routes: [{ provider: 'gemini', model: '{model}' }] },
      },
    }),
  );
  t.teardown(() => gw.stop());
  const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });

  const haiku = 'claude-haiku-4-5-20251001';
  const { data, response } = await anthropic.messages
    .create({ model: haiku, max_tokens: 32, messages: [{ role: 'user', content: 'background work' }] })
    .withResponse();
  t.equal(anth.requests.at(-1)?.path, '/v1/messages');
  t.equal((anth.requests.at(-1)?.body as { model: string }).model, haiku, 'the client name passed through');
  t.equal(response.headers.get('x-polygate-route'), `anthropic/${haiku}`);
  t.equal(data.model, haiku);
  t.equal(
    data.content[0].type === 'text' && data.content[0].text,
    'background work',
    'the upstream answered, not the standby echo',
  );

  await anthropic.messages.create({
    model: 'claude-3-opus',
    max_tokens: 32,
    messages: [{ role: 'user', content: 'x' }],
  });
  t.equal(
    (anth.requests.at(-1)?.body as { model: string }).model,
    'legacy-opus',
    'the more specific glob, its * part in {1}',
  );

  const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url, apiVersion: 'v1beta' } });
  for (const model of ['gemini-3.5-flash-lite', 'gemini-3.1-pro-preview']) {
    const r = await genai.models.generateContent({ model, contents: 'which model?' });
    t.equal(gem.requests.at(-1)?.path, `/v1beta/models/${model}:generateContent`);
    t.equal(r.text, 'which model?');
  }
  let streamed = '';
  for await (const c of await genai.models.generateContentStream({
    model: 'gemini-3.1-pro-preview',
    contents: 'streamed through the glob',
  }))
    streamed += c.text ?? '';
  t.equal(streamed, 'streamed through the glob');

  const other = new Anthropic({ apiKey: OTHER_KEY, baseURL: gw.url, maxRetries: 0 });
  t.type(
    await other.messages
      .create({ model: haiku, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e),
    Anthropic.PermissionDeniedError,
    'the allow-list applies to the client-facing name',
  );
  t.type(
    await anthropic.messages
      .create({ model: 'mistral-large', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e),
    Anthropic.NotFoundError,
    'no glob matches: 404',
  );

  const m = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(
    m,
    /polygate_tokens_total\{family="messages",provider="anthropic",model="claude-\*",kind="input"\} \d+/,
    'token metrics carry the glob, not the client name',
  );
  t.notMatch(m, /model="claude-haiku/);
});

t.test('the default config answers the CLIs default names with echo when no key is set', async (t) => {
  const env: Record<string, string> = {
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    GEMINI_API_KEY: '',
    POLYGATE_KEY: '',
  };
  const gw = await startGateway(join(repoRoot, 'config/gateway.yaml'), env);
  t.teardown(() => gw.stop());
  const key = 'sk-polygate-demo';
  const anthropic = new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
  for (const model of ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001', 'claude-opus-4-1']) {
    const { data, response } = await anthropic.messages
      .create({ model, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    t.equal(data.content[0].type === 'text' && data.content[0].text, 'hi', `${model} answered`);
    t.equal(response.headers.get('x-polygate-route'), 'echo/echo', `${model}: the standby echo route says so`);
  }
  const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url, apiVersion: 'v1beta' } });
  for (const model of ['gemini-3.5-flash-lite', 'gemini-3.1-pro-preview']) {
    t.equal((await genai.models.generateContent({ model, contents: 'hi gemini' })).text, 'hi gemini', model);
  }
  const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  for (const model of ['gpt-5-codex', 'gpt-5.5', 'o4-mini']) {
    const r = await openai.responses.create({ model, input: 'hi codex', store: false });
    t.equal(r.output_text, 'hi codex', model);
  }
  const sonnet = await anthropic.messages
    .create({ model: 'claude-sonnet', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.equal(
    (sonnet as InstanceType<typeof Anthropic.APIError>).status,
    503,
    'an exact entry keeps its routes: no standby, 503 without a key',
  );
  // Log lines are written asynchronously (src/infra/log/logger.ts): the line is waited for.
  const standby = await waitFor(
    'the standby line',
    async () => (/model 'claude-\*' is answered by its standby route \(echo\)/.test(gw.output()) ? true : undefined),
    5_000,
  ).catch(() => false);
  t.ok(standby, "the log says model 'claude-*' is answered by its standby route (echo)");
  const ids: string[] = [];
  for await (const m of openai.models.list()) ids.push(m.id);
  t.ok(ids.includes('echo') && ids.includes('tts-1'), 'exact names that serve are listed');
  t.notOk(ids.includes('claude-sonnet') || ids.some((id) => id.includes('*')), 'unserved names and globs are not');
});
