import { Agent } from 'undici';
import type { ChatUpstreamCodec } from '../adapters/shared/chat-adapter.ts';
import { upstreamCodecOf } from './pipeline/upstream-codecs.ts';
import type { GatewayConfig, LoadedConfig, ProviderConfig } from './config/gateway-config.ts';
import { KeyRing } from './auth/key-ring.ts';
import type { ChatProvider } from './providers/chat-provider.ts';
import { EchoProvider } from './providers/echo-provider.ts';
import { HttpChatProvider } from './providers/http-chat-provider.ts';
import { ModelRouter } from './routing/model-router.ts';

/**
 * Everything built from one config file. A request takes the runtime current when it starts and
 * keeps it to its end, so a reload swaps the whole object atomically under in-flight requests.
 */
export class Runtime {
  readonly config: GatewayConfig;
  readonly keys: KeyRing;
  readonly router: ModelRouter;
  readonly chatProviders = new Map<string, ChatProvider>();
  /** Provider name → why it cannot serve (unset key, type not served by this build). */
  readonly disabled: Map<string, string>;
  readonly warnings: string[];
  readonly dispatcher: Agent;

  constructor(loaded: LoadedConfig) {
    this.config = loaded.config;
    this.warnings = [...loaded.warnings];
    this.disabled = new Map(loaded.disabledProviders);
    this.keys = new KeyRing(this.config.keys);
    // One keep-alive pool for every upstream: connection setup stays off the request path.
    this.dispatcher = new Agent({ connectTimeout: this.config.upstream.connect_timeout_ms, keepAliveTimeout: 30_000, connections: 256 });
    const timeouts = { firstByteMs: this.config.upstream.first_byte_timeout_ms, idleMs: this.config.upstream.idle_timeout_ms };
    for (const [name, p] of Object.entries(this.config.providers)) {
      if (this.disabled.has(name)) continue;
      const codec = chatCodecOf(p);
      if (p.type === 'echo') this.chatProviders.set(name, new EchoProvider(name));
      else if (codec) this.chatProviders.set(name, new HttpChatProvider(name, p, codec, this.dispatcher, timeouts));
    }
    this.router = new ModelRouter(this.config.models, this.disabled);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

function chatCodecOf(p: ProviderConfig): ChatUpstreamCodec | undefined {
  switch (p.type) {
    case 'anthropic':
      return upstreamCodecOf('anthropic-messages');
    case 'openai':
      return upstreamCodecOf(p.api === 'responses' ? 'openai-responses' : 'openai-chat');
    case 'gemini':
      return upstreamCodecOf('gemini');
    case 'tune':
    case 'echo':
    case 'local-speech':
    case 'sandbox-tune':
      return undefined;
    default: {
      const never: never = p.type;
      return never;
    }
  }
}

/** Holder of the runtime in force; replaced whole on reload. */
export type RuntimeRef = { current: Runtime };
