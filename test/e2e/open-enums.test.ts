// Issue #29 end to end: enum words newer than polygate, sent with the official SDKs to a running
// polygate on translated routes (echo and emulated Chat, Responses and Gemini upstreams), are no
// 400. Claude Code 2.1.332's `thinking.display: "updates"` keeps the thinking: the upstream is
// asked to reason. Words polygate does not know are read as the nearest known one and named in
// x-polygate-warnings.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

import type { Json } from '../helpers/json.ts';

const { app, up } = await inProcessWithEmulators(t, {
  upstreams: { oai: 'chat', resp: 'responses', gem: 'gemini' },
  models: modelRoutes({
    'via-chat': 'oai/gpt-up',
    'via-responses': 'resp/gpt-up-r',
    'via-gemini': 'gem/gemini-up',
  }),
});

/** What reached each emulated upstream as its reasoning setting. */
const reasoningOf: Record<string, (body: Json) => unknown> = {
  'via-chat': (b) => b.reasoning_effort,
  'via-responses': (b) => b.reasoning?.effort,
  'via-gemini': (b) => b.generationConfig?.thinkingConfig,
};
const emulatorOf = { 'via-chat': up.oai, 'via-responses': up.resp, 'via-gemini': up.gem } as const;

const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: app.url, maxRetries: 0, defaultQuery: { beta: 'true' } });

/** Claude Code 2.1.332's reasoning settings (docs: /work/shared/real-clients.md). */
const claudeCode = (model: string): Json => ({
  model,
  max_tokens: 32000,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'say hi' }] }],
  tools: [{ name: 'Bash', description: 'run', input_schema: { type: 'object', properties: {} } }],
  thinking: { type: 'adaptive', display: 'updates' },
  output_config: { effort: 'high' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  stream: true,
});
const betas = ['claude-code-20250219', 'effort-2025-11-24', 'thinking-display-updates-2026-08-18'];

for (const model of ['echo', 'via-chat', 'via-responses', 'via-gemini'] as const) {
  t.test(`Claude Code 2.1.332 thinking on ${model}: served, and the upstream is asked to reason`, async (t) => {
    const emulator = model === 'echo' ? undefined : emulatorOf[model];
    emulator?.reset();
    const { data: stream, response } = await anthropic.beta.messages
      .create({ ...claudeCode(model), betas } as any)
      .withResponse();
    const types: string[] = [];
    for await (const e of stream as unknown as AsyncIterable<Json>) types.push(e.type);
    t.equal(response.status, 200);
    t.equal(types.at(-1), 'message_stop');
    t.notMatch(response.headers.get('x-polygate-warnings') ?? '', /thinking\.display/, 'updates is no unknown word');
    if (!emulator) return;
    const got = reasoningOf[model](emulator.requests[0].body as Json);
    if (model === 'via-gemini') t.match(got, { thinkingBudget: 24576, includeThoughts: true }, 'thinking, shown');
    else t.equal(got, 'high', 'effort high');
  });
}

t.test('Messages: a display and an effort newer than polygate are read as the nearest', async (t) => {
  up.oai.reset();
  const { response } = await anthropic.messages
    .create({
      model: 'via-chat',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'hi' }],
      thinking: { type: 'adaptive', display: 'hologram' },
      output_config: { effort: 'ultra' },
    } as any)
    .withResponse();
  t.equal(response.status, 200);
  t.match(response.headers.get('x-polygate-warnings'), /thinking\.display: 'hologram' is newer than polygate/);
  t.match(response.headers.get('x-polygate-warnings'), /output_config\.effort: 'ultra' .* read as 'max'/);
  t.equal((up.oai.requests[0].body as Json).reasoning_effort, 'xhigh', "max is the Chat upstream's xhigh");
});

const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });

t.test('Chat Completions: an unknown reasoning_effort and tool_choice on a translated route', async (t) => {
  up.gem.reset();
  const { response } = await openai.chat.completions
    .create({
      model: 'via-gemini',
      messages: [{ role: 'user', content: 'hi' }],
      reasoning_effort: 'extra-high',
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'eventually',
    } as any)
    .withResponse();
  t.equal(response.status, 200);
  const warnings = response.headers.get('x-polygate-warnings') ?? '';
  t.match(warnings, /reasoning_effort: 'extra-high' is newer than polygate; read as 'xhigh'/);
  t.match(warnings, /tool_choice: 'eventually' is newer than polygate and has no translation; dropped/);
  t.match((up.gem.requests[0].body as Json).generationConfig.thinkingConfig, { thinkingBudget: 24576 });
});

t.test('Responses: an unknown reasoning effort and summary on a translated route', async (t) => {
  up.oai.reset();
  const { response } = await openai.responses
    .create({
      model: 'via-chat',
      input: 'hi',
      reasoning: { effort: 'lowest', summary: 'verbose' },
      truncation: 'middle_out',
    } as any)
    .withResponse();
  t.equal(response.status, 200);
  const warnings = response.headers.get('x-polygate-warnings') ?? '';
  t.match(warnings, /reasoning\.effort: 'lowest' is newer than polygate; read as 'minimal'/);
  t.match(warnings, /truncation: 'middle_out'/);
  t.equal((up.oai.requests[0].body as Json).reasoning_effort, 'minimal');
});

t.test('Gemini: an unknown thinkingLevel and function calling mode on a translated route', async (t) => {
  up.oai.reset();
  const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: app.url } });
  const r = await ai.models.generateContent({
    model: 'via-chat',
    contents: 'hi',
    config: {
      thinkingConfig: { thinkingLevel: 'ULTRA' as any },
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' as any, properties: {} } }] }],
      toolConfig: { functionCallingConfig: { mode: 'EAGER' as any } },
    },
  });
  t.ok(r.candidates?.length, 'answered');
  const body = up.oai.requests[0].body as Json;
  t.equal(body.reasoning_effort, 'high', 'ULTRA is read as HIGH');
  t.equal(body.tool_choice, 'auto', 'a newer mode without names lets the model choose');
});
