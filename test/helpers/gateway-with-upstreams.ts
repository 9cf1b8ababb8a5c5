// A polygate (in-process unless asked to spawn) with emulated upstreams (test/emulators/) beside
// the built-in echo, all stopped at teardown. Each test names its providers; the helper starts one emulator per name,
// of the kind given, and writes its provider entry (the upstream key is fixed per kind).
import type { Test } from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import type { FormatModule } from '../../src/infra/formats/formats.ts';
import { startInProcessGateway, type InProcessGateway } from './in-process-app.ts';
import { startGateway, testConfig, type RunningGateway } from './start-gateway.ts';

export type UpstreamKind = 'anthropic' | 'chat' | 'responses' | 'gemini';

const kinds: Record<UpstreamKind, { start: () => Promise<Emulator>; provider: Record<string, unknown> }> = {
  anthropic: { start: startAnthropicUpstream, provider: { type: 'anthropic', api_key: 'sk-upstream-anthropic' } },
  chat: {
    start: startOpenAIChatUpstream,
    provider: { type: 'openai', api: 'chat_completions', api_key: 'sk-upstream-openai' },
  },
  responses: {
    start: startOpenAIResponsesUpstream,
    provider: { type: 'openai', api: 'responses', api_key: 'sk-upstream-responses' },
  },
  gemini: { start: startGeminiUpstream, provider: { type: 'gemini', api_key: 'upstream-gemini' } },
};

/**
 * Starts one emulator per provider name (`upstreams` maps a name to its kind) and writes each
 * one's provider entry; `close` stops them all.
 */
export async function startEmulators<N extends string>(
  upstreams: Record<N, UpstreamKind>,
): Promise<{ up: Record<N, Emulator>; providers: Record<string, unknown>; close(): Promise<void> }> {
  const names = Object.keys(upstreams) as N[];
  const started = await Promise.all(names.map((n) => kinds[upstreams[n]].start()));
  const up = Object.fromEntries(names.map((n, i) => [n, started[i]])) as Record<N, Emulator>;
  const providers = Object.fromEntries(names.map((n) => [n, { ...kinds[upstreams[n]].provider, base_url: up[n].url }]));
  return { up, providers, close: async () => void (await Promise.all(started.map((e) => e.close()))) };
}

/**
 * A gateway beside emulated upstreams: `upstreams` maps a provider name to the kind of emulator
 * that serves it. The gateway runs in the test's process (startInProcessGateway); `spawned: true`
 * starts a real process instead, for a test whose subject is the process (signals, exit, stdout).
 */
export async function gatewayWithEmulators<N extends string>(
  t: Test,
  o: {
    upstreams: Record<N, UpstreamKind>;
    models: Record<string, unknown>;
    providers?: Record<string, unknown>;
    config?: Record<string, unknown>;
    formats?: readonly FormatModule[];
    spawned?: boolean;
  },
): Promise<{ gw: RunningGateway; up: Record<N, Emulator> }> {
  const emulators = await startEmulators(o.upstreams);
  const config = testConfig({ ...o.config, providers: { ...emulators.providers, ...o.providers }, models: o.models });
  const gw = o.spawned ? await startGateway(config) : await startInProcessGateway(config, { formats: o.formats });
  t.teardown(async () => {
    await gw.stop();
    await emulators.close();
  });
  return { gw, up: emulators.up };
}

/** gatewayWithEmulators, its gateway named `app` (and typed as the in-process one it is). */
export async function inProcessWithEmulators<N extends string>(
  t: Test,
  o: Omit<Parameters<typeof gatewayWithEmulators<N>>[1], 'spawned'>,
): Promise<{ app: InProcessGateway; up: Record<N, Emulator> }> {
  const { gw, up } = await gatewayWithEmulators(t, o);
  return { app: gw as InProcessGateway, up };
}

/**
 * An in-process gateway beside an emulated Anthropic upstream (provider `anth`) and an OpenAI Chat
 * Completions one (`oai`): the pair every Messages-to-Chat and Chat-to-Messages translation test needs.
 */
export async function gatewayWithUpstreams(
  t: Test,
  extra: { providers?: Record<string, unknown>; models: Record<string, unknown> },
): Promise<{ gw: InProcessGateway; anth: Emulator; oai: Emulator }> {
  const { app, up } = await inProcessWithEmulators(t, { upstreams: { anth: 'anthropic', oai: 'chat' }, ...extra });
  return { gw: app, anth: up.anth, oai: up.oai };
}
