// The audio-capable providers of one runtime, built on first use and kept with it (a config reload
// brings a new runtime and so new providers). Which provider types can serve the `openai-audio` format:
// `openai` (HTTP) and the built-in `local-speech`.
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';
import type { AudioProvider } from './audio-provider.ts';
import { LocalSpeechProvider } from './local-speech-provider.ts';
import { OpenAIAudioProvider } from './openai-audio-provider.ts';

const byRuntime = new WeakMap<Runtime, Map<string, AudioProvider>>();

export function servesAudio(p: ProviderConfig): boolean {
  switch (p.type) {
    case 'openai':
    case 'local-speech':
      return true;
    // Azure's audio deployments take other paths; polygate reaches Azure and Bedrock for chat only.
    case 'azure-openai':
    case 'bedrock':
    case 'vertex':
    case 'anthropic':
    case 'gemini':
    case 'tune':
    case 'echo':
    case 'sandbox-tune':
      return false;
    default: {
      const never: never = p.type;
      return never;
    }
  }
}

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
