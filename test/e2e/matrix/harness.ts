// One polygate process with a provider for every chat upstream type: the four emulators and the
// built-in echo. Each upstream type serves one client-facing model, so a matrix cell is just
// (driver, model). Emulators are shared, so cells run one after the other and reset between.
import { startAnthropicUpstream } from '../../emulators/anthropic-upstream.ts';
import type { Emulator } from '../../emulators/emulator-types.ts';
import { startGeminiUpstream } from '../../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../../emulators/openai-responses-upstream.ts';
import { startGateway, testConfig, type Gateway } from '../../helpers/start-gateway.ts';

export type UpstreamName = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'echo';
export const upstreamNames: UpstreamName[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'echo'];

/** The key each provider presents upstream; a cell checks it arrived instead of the client's. */
export const upstreamKeys: Record<Exclude<UpstreamName, 'echo'>, string> = {
  anthropic: 'sk-upstream-anthropic',
  'openai-chat': 'sk-upstream-chat',
  'openai-responses': 'sk-upstream-responses',
  gemini: 'upstream-gemini-key',
};

/** Client-facing model → the upstream model name its route names. */
export const models: Record<UpstreamName, { client: string; upstream: string }> = {
  anthropic: { client: 'm-anthropic', upstream: 'claude-up-1' },
  'openai-chat': { client: 'm-chat', upstream: 'gpt-chat-up-1' },
  'openai-responses': { client: 'm-responses', upstream: 'gpt-resp-up-1' },
  gemini: { client: 'm-gemini', upstream: 'gemini-up-1' },
  echo: { client: 'm-echo', upstream: 'echo-1' },
};

/** The provider name each upstream type has in the config (what `x-polygate-route` names). */
export const providerNames: Record<UpstreamName, string> = {
  anthropic: 'anth',
  'openai-chat': 'chat',
  'openai-responses': 'resp',
  gemini: 'gem',
  echo: 'echo',
};

export type Harness = {
  gw: Gateway;
  emulators: Record<Exclude<UpstreamName, 'echo'>, Emulator>;
  close(): Promise<void>;
};

/**
 * `extra`: more models and top-level config (the client suite's hosted-search route, #27), more
 * providers and the gateway process's environment (its cloud routes, #26).
 */
export async function startHarness(
  extra: {
    models?: Record<string, unknown>;
    providers?: Record<string, unknown>;
    config?: Record<string, unknown>;
    env?: Record<string, string>;
  } = {},
): Promise<Harness> {
  const [anthropic, chat, responses, gemini] = await Promise.all([
    startAnthropicUpstream(),
    startOpenAIChatUpstream(),
    startOpenAIResponsesUpstream(),
    startGeminiUpstream(),
  ]);
  const route = (u: UpstreamName): Record<string, unknown> => ({
    routes: [{ provider: providerNames[u], model: models[u].upstream }],
  });
  const gw = await startGateway(
    testConfig({
      providers: {
        anth: { type: 'anthropic', base_url: anthropic.url, api_key: upstreamKeys.anthropic },
        chat: { type: 'openai', base_url: chat.url, api_key: upstreamKeys['openai-chat'], api: 'chat_completions' },
        resp: { type: 'openai', base_url: responses.url, api_key: upstreamKeys['openai-responses'], api: 'responses' },
        gem: { type: 'gemini', base_url: gemini.url, api_key: upstreamKeys.gemini },
        ...extra.providers,
      },
      models: {
        [models.anthropic.client]: route('anthropic'),
        [models['openai-chat'].client]: route('openai-chat'),
        [models['openai-responses'].client]: route('openai-responses'),
        [models.gemini.client]: route('gemini'),
        [models.echo.client]: route('echo'),
        ...extra.models,
      },
      ...extra.config,
    }),
    extra.env,
  );
  const emulators = { anthropic, 'openai-chat': chat, 'openai-responses': responses, gemini };
  return {
    gw,
    emulators,
    close: async () => {
      await gw.stop();
      await Promise.all(Object.values(emulators).map((e) => e.close()));
    },
  };
}

/**
 * The headers of the last response polygate sent to this process. Every SDK calls the global
 * fetch, so wrapping it once sees them all (x-polygate-warnings, x-polygate-route).
 */
export function recordResponseHeaders(gatewayUrl: string): { last: () => Headers | undefined } {
  let seen: Headers | undefined;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await original(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(gatewayUrl)) seen = res.headers;
    return res;
  };
  return { last: () => seen };
}
