// The audio-capable providers of one runtime, built on first use and kept with it (a config reload
// brings a new runtime and so new providers). Which provider types can serve the `openai-audio` format:
// those its module names (`openai`, over HTTP) and the built-in `local-speech`.
import { openaiAudio } from '../../../adapters/openai-audio/index.ts';
import { servesProvider } from '../../../adapters/shared/format-module.ts';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';
import type { AudioProvider } from './audio-provider.ts';
import { LocalSpeechProvider } from './local-speech-provider.ts';
import { OpenAIAudioProvider } from './openai-audio-provider.ts';

const byRuntime = new WeakMap<Runtime, Map<string, AudioProvider>>();

/** Azure's audio deployments take other paths: polygate reaches Azure, Bedrock and Vertex for chat only. */
export const servesAudio = (p: ProviderConfig): boolean =>
  p.type === 'local-speech' || servesProvider(openaiAudio, p.type, p.api);

/** The provider named in a route, or undefined when it is disabled or cannot serve audio. */
export function audioProviderOf(runtime: Runtime, name: string): AudioProvider | undefined {
  let providers = byRuntime.get(runtime);
  if (!providers) {
    providers = new Map();
    byRuntime.set(runtime, providers);
  }
  const built = providers.get(name);
  if (built) return built;
  const cfg = runtime.config.providers[name];
  if (!cfg || runtime.disabled.has(name) || !servesAudio(cfg)) return undefined;
  const provider =
    cfg.type === 'local-speech'
      ? new LocalSpeechProvider(name)
      : new OpenAIAudioProvider(name, cfg, (ms) => runtime.dispatcherFor(ms));
  providers.set(name, provider);
  return provider;
}
