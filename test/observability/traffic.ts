// Traffic for the observability test, as data: one entry per upstream and one per client family.
// A family that has not landed yet answers its route with the "no route" 404 and is skipped; when
// it lands, its entry starts driving traffic (and its panels start being checked) on its own.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type tap from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';

export type Asserts = Pick<typeof tap, 'ok' | 'equal' | 'match'>;

/** A chat upstream: the provider config to reach it, and how to start its emulator. */
export type ChatUpstream = {
  name: string;
  start(): Promise<{ provider: Record<string, unknown>; close(): Promise<void> }>;
};

/** Client-facing model of each chat upstream in the test config. */
export const chatModelOf = (u: ChatUpstream): string => `via-${u.name}`;

const emulated =
  (type: string, start: () => Promise<{ url: string; close(): Promise<void> }>, extra: Record<string, unknown> = {}) =>
  async () => {
    const em = await start();
    return {
      provider: { type, base_url: em.url, api_key: `sk-upstream-${type}-secret`, ...extra },
      close: () => em.close(),
    };
  };

/** echo answers in-process; the others are emulated at the network boundary. */
export const chatUpstreams: ChatUpstream[] = [
  { name: 'echo', start: async () => ({ provider: { type: 'echo' }, close: async () => {} }) },
  { name: 'anthropic', start: emulated('anthropic', startAnthropicUpstream) },
  { name: 'openai-chat', start: emulated('openai', startOpenAIChatUpstream, { api: 'chat_completions' }) },
  { name: 'openai-responses', start: emulated('openai', startOpenAIResponsesUpstream, { api: 'responses' }) },
  { name: 'gemini', start: emulated('gemini', startGeminiUpstream) },
];

/** A model whose first route refuses connections (port 1), so every call falls back to echo. */
export const fallbackModel = 'with-fallback';

/** The music side of the config: the sandbox and an emulated `tune` upstream, one model each. */
export async function startMusicUpstream(): Promise<{
  config: Record<string, unknown>;
  models: string[];
  close(): Promise<void>;
}> {
  const up = await startTuneUpstream();
  return {
    models: ['tune-v3-0', 'tune-v3-5'],
    config: {
      providers: { sandbox: { type: 'sandbox-tune' }, tuneup: { type: 'tune', base_url: up.url, api_key: up.apiKey } },
      models: {
        'tune-v3-0': { routes: [{ provider: 'sandbox', model: 'tune-v3-0' }] },
        'tune-v3-5': { routes: [{ provider: 'tuneup', model: 'chirp-v3-5' }] },
      },
    },
    close: () => up.close(),
  };
}

export type TrafficEnv = {
  url: string;
  key: string;
  /** Client-facing chat models whose upstream answers: one translation path each. */
  chatModels: string[];
  musicModels: string[];
  /** notify_hook URL, and a wait for the callback of one task. */
  hookUrl: string;
  callbackFor(taskId: string): Promise<void>;
};

/** The `family` label values the dashboards query (each format module's `metricLabel`, src/infra/formats/formats.ts). */
type Family = 'messages' | 'chat' | 'responses' | 'gemini' | 'audio' | 'tune';

export type FamilyTraffic = {
  family: Family;
  /** Where the family's route is probed, with its credential header. */
  probe(env: TrafficEnv): { path: string; headers: Record<string, string> };
  /** One round through every path of the family; every answer is checked. */
  drive(t: Asserts, env: TrafficEnv, round: number): Promise<void>;
};

/** What every chat answer must say: the emulators and echo answer with the last user text. */
const promptOf = (family: string, model: string, round: number): string =>
  `observe ${family} through ${model} round ${round}`;

/** Runs the calls and checks that an unknown model is refused with 404 in the family's own way. */
async function unknownModel(t: Asserts, family: string, call: () => Promise<unknown>): Promise<void> {
  const err = await call().then(
    () => undefined,
    (e: unknown) => e as { status?: number },
  );
  t.equal(err?.status, 404, `${family}: an unknown model is refused with 404`);
}

/** The OpenAI-keyed families are probed with the gateway key as a bearer token. */
const bearerProbe =
  (path: string): FamilyTraffic['probe'] =>
  (env) => ({ path, headers: { authorization: `Bearer ${env.key}` } });
const openaiClient = (env: TrafficEnv) => new OpenAI({ apiKey: env.key, baseURL: `${env.url}/v1`, maxRetries: 0 });
/** Every chat path is driven through each client-facing model and the fallback model. */
const modelsOf = (env: TrafficEnv) => [...env.chatModels, fallbackModel];

export const families: FamilyTraffic[] = [
  {
    family: 'messages',
    probe: (env) => ({ path: '/v1/messages', headers: { 'x-api-key': env.key, 'anthropic-version': '2023-06-01' } }),
    async drive(t, env, round) {
      const client = new Anthropic({ apiKey: env.key, baseURL: env.url, maxRetries: 0 });
      for (const model of modelsOf(env)) {
        const prompt = promptOf('messages', model, round);
        // top_k is a tuning knob some upstreams cannot carry: a translation warning there.
        const body = { model, max_tokens: 64, top_k: 5, messages: [{ role: 'user' as const, content: prompt }] };
        const msg = await client.messages.create(body);
        t.equal(msg.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), prompt, `messages via ${model}`);
        const streamed = await client.messages.stream(body).finalMessage();
        t.equal(
          streamed.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
          prompt,
          `messages stream via ${model}`,
        );
      }
      await unknownModel(t, 'messages', () =>
        client.messages.create({ model: 'no-such-model', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
      );
    },
  },
  {
    family: 'chat',
    probe: bearerProbe('/v1/chat/completions'),
    async drive(t, env, round) {
      const client = openaiClient(env);
      for (const model of modelsOf(env)) {
        const prompt = promptOf('chat', model, round);
        const messages = [{ role: 'user' as const, content: prompt }];
        const done = await client.chat.completions.create({ model, messages });
        t.equal(done.choices[0].message.content, prompt, `chat via ${model}`);
        let text = '';
        const stream = await client.chat.completions.create({
          model,
          messages,
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
        t.equal(text, prompt, `chat stream via ${model}`);
      }
      await unknownModel(t, 'chat', () =>
        client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
      );
    },
  },
  {
    family: 'responses',
    probe: bearerProbe('/v1/responses'),
    async drive(t, env, round) {
      const client = openaiClient(env);
      for (const model of modelsOf(env)) {
        const prompt = promptOf('responses', model, round);
        const done = await client.responses.create({ model, input: prompt, store: false });
        t.equal(done.output_text, prompt, `responses via ${model}`);
        const streamed = await client.responses.stream({ model, input: prompt, store: false }).finalResponse();
        t.equal(streamed.output_text, prompt, `responses stream via ${model}`);
      }
      await unknownModel(t, 'responses', () =>
        client.responses.create({ model: 'no-such-model', input: 'x', store: false }),
      );
    },
  },
  {
    family: 'gemini',
    probe: (env) => ({
      path: `/v1beta/models/${chatModelOf(chatUpstreams[0])}:generateContent`,
      headers: { 'x-goog-api-key': env.key },
    }),
    async drive(t, env, round) {
      const ai = new GoogleGenAI({ apiKey: env.key, httpOptions: { baseUrl: env.url } });
      for (const model of modelsOf(env)) {
        const prompt = promptOf('gemini', model, round);
        const done = await ai.models.generateContent({ model, contents: prompt });
        t.equal(done.text, prompt, `gemini via ${model}`);
        let text = '';
        for await (const chunk of await ai.models.generateContentStream({ model, contents: prompt }))
          text += chunk.text ?? '';
        t.equal(text, prompt, `gemini stream via ${model}`);
      }
      await unknownModel(t, 'gemini', () => ai.models.generateContent({ model: 'no-such-model', contents: 'x' }));
    },
  },
  {
    family: 'audio',
    probe: bearerProbe('/v1/audio/speech'),
    async drive(t, env) {
      const client = openaiClient(env);
      const speech = await client.audio.speech.create({
        model: 'tts-1',
        voice: 'alloy',
        input: 'Metrics are flowing.',
        response_format: 'wav',
      });
      const bytes = Buffer.from(await speech.arrayBuffer());
      t.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF', 'audio: speech comes back as WAV');
      await unknownModel(t, 'audio', () =>
        client.audio.speech.create({ model: 'no-such-model', voice: 'alloy', input: 'x' }),
      );
    },
  },
  {
    family: 'tune',
    probe: bearerProbe('/tune/submit/music'),
    async drive(t, env, round) {
      // No official SDK speaks family A; Suno-style clients send plain JSON like this.
      const submitted = await Promise.all(
        env.musicModels.map(async (mv) => {
          const res = await fetch(`${env.url}/tune/submit/music`, {
            method: 'POST',
            headers: { authorization: `Bearer ${env.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              mv,
              prompt: `round ${round}`,
              title: 'Scraped',
              tags: 'ambient',
              notify_hook: env.hookUrl,
            }),
          });
          const body = (await res.json()) as { code: string; data: string };
          t.equal(body.code, 'success', `tune: ${mv} task accepted`);
          return body.data;
        }),
      );
      for (const id of submitted) {
        await env.callbackFor(id);
        const res = await fetch(`${env.url}/tune/fetch/${id}`, { headers: { authorization: `Bearer ${env.key}` } });
        const body = (await res.json()) as { data: { status: string } };
        t.equal(body.data.status, 'SUCCESS', 'tune: the task finished and its callback arrived');
      }
    },
  },
];
