// A running polygate with an emulated Anthropic upstream (provider `anth`) and an emulated OpenAI
// Chat Completions upstream (provider `oai`) beside the built-in echo, all stopped at teardown.
import type { Test } from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startGateway, testConfig, type Gateway } from './start-gateway.ts';

export async function gatewayWithUpstreams(
  t: Test,
  extra: { providers?: Record<string, unknown>; models: Record<string, unknown> },
): Promise<{ gw: Gateway; anth: Emulator; oai: Emulator }> {
  const anth = await startAnthropicUpstream();
  const oai = await startOpenAIChatUpstream();
  const gw = await startGateway(
    testConfig({
      providers: {
        anth: { type: 'anthropic', base_url: anth.url, api_key: 'sk-upstream-anthropic' },
        oai: { type: 'openai', base_url: oai.url, api_key: 'sk-upstream-openai', api: 'chat_completions' },
        ...extra.providers,
      },
      models: extra.models,
    }),
  );
  t.teardown(async () => {
    await gw.stop();
    await anth.close();
    await oai.close();
  });
  return { gw, anth, oai };
}
