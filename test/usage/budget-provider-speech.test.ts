// Issue #25, item 2: a provider budget holds for speech too. Speech reserves nothing (its cost is
// known as its audio ends), so a request is admitted while its provider is below the budget; past
// it, the speech route is skipped and, with none left, the official OpenAI SDK gets a 429 naming
// the provider. No upstream call is made for it.
import OpenAI from 'openai';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startOpenAIAudioUpstream } from '../emulators/openai-audio-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { pricedConfig } from './usage-helpers.ts';

const [chat, anth, audio] = await Promise.all([
  startOpenAIChatUpstream(),
  startAnthropicUpstream(),
  startOpenAIAudioUpstream(),
]);
t.teardown(() => Promise.all([chat.close(), anth.close(), audio.close()]));

t.test('speech through a provider over its budget: 429 naming it, no upstream call', async (t) => {
  const config = pricedConfig({ chatUrl: chat.url, anthropicUrl: anth.url, audioUrl: audio.url, audioKey: audio.key });
  // One speech request of 40 characters costs $0.0006 plus its seconds: the first uses the budget up.
  (config.usage as Record<string, unknown>).provider_budgets = {
    audio: { limits: [{ period: 'month', usd: 0.0001 }] },
  };
  const gw = await startInProcessGateway(config);
  t.teardown(() => gw.stop());
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY });
  const input = 'forty characters of text to speak aloud.';
  const first = await openai.audio.speech.create({ model: 'tts-1', input, voice: 'alloy', response_format: 'pcm' });
  t.ok((await first.arrayBuffer()).byteLength > 0, 'served while the provider is under its budget');
  const before = audio.requests.length;
  const refused = await openai.audio.speech
    .create({ model: 'tts-1', input, voice: 'alloy', response_format: 'pcm' })
    .catch((e: unknown) => e);
  t.ok(refused instanceof OpenAI.RateLimitError, 'the SDK raises its RateLimitError');
  t.match((refused as Error).message, /Budget used up for provider 'audio'.*usd_per_month/);
  t.equal(audio.requests.length, before, 'no upstream call');
});
