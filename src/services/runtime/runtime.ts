import { Agent, type Dispatcher } from 'undici';
import type { GatewayConfig, LoadedConfig } from '../../infra/config/gateway-config.ts';
import { KeyRing } from '../auth/key-ring.ts';
import type { ChatProvider } from '../providers/chat-provider.ts';
import { EchoProvider } from '../providers/echo-provider.ts';
import { HttpChatProvider } from '../providers/http-chat-provider.ts';
import { chatCodecOf } from '../providers/provider-codec.ts';
import { BedrockProvider } from '../providers/bedrock/bedrock-provider.ts';
import { VertexProvider } from '../providers/vertex/vertex-provider.ts';
import { secretsOf } from '../providers/scrub-secrets.ts';
import { ModelRouter } from '../routing/model-router.ts';

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
  /** Pools for routes with their own connect timeout: undici sets that timeout per pool. */
  readonly #pools = new Map<number, Agent>();
  /** Requests that started on this runtime and have not ended (src/app/app.ts holds and releases). */
  #inFlight = 0;
  #idle: (() => void) | undefined;

  constructor(loaded: LoadedConfig) {
    this.config = loaded.config;
    this.warnings = [...loaded.warnings];
    this.disabled = new Map(loaded.disabledProviders);
    this.keys = new KeyRing(this.config.keys);
    // One keep-alive pool for every upstream: connection setup stays off the request path.
    this.dispatcher = new Agent({
      connectTimeout: this.config.upstream.connect_timeout_ms,
      keepAliveTimeout: 30_000,
      connections: this.config.upstream.max_connections,
    });
    const secrets = secretsOf(this.config);
    const timeouts = {
      firstByteMs: this.config.upstream.first_byte_timeout_ms,
      idleMs: this.config.upstream.idle_timeout_ms,
    };
    for (const [name, p] of Object.entries(this.config.providers)) {
      if (this.disabled.has(name)) continue;
      const codec = chatCodecOf(p);
      if (p.type === 'echo') this.chatProviders.set(name, new EchoProvider(name));
      else if (p.type === 'vertex')
        this.chatProviders.set(
          name,
          new VertexProvider(
            name,
            p,
            (ms) => (ms === undefined ? this.dispatcher : this.dispatcherFor(ms)),
            timeouts,
            secrets,
            this.config.upstream.max_answer_bytes,
          ),
        );
      else if (p.type === 'bedrock')
        this.chatProviders.set(
          name,
          new BedrockProvider(
            name,
            p,
            (ms) => (ms === undefined ? this.dispatcher : this.dispatcherFor(ms)),
            timeouts,
            secrets,
            this.config.upstream.max_answer_bytes,
          ),
        );
      else if (codec)
        this.chatProviders.set(
          name,
          new HttpChatProvider(
            name,
            p,
            codec,
            this.dispatcher,
            timeouts,
            (ms) => this.dispatcherFor(ms),
            this.config.upstream.max_connections,
            secrets,
            this.config.upstream.max_answer_bytes,
          ),
        );
    }
    this.router = new ModelRouter(this.config.models, this.disabled, this.config.upstream);
  }

  dispatcherFor(connectMs: number): Dispatcher {
    if (connectMs === this.config.upstream.connect_timeout_ms) return this.dispatcher;
    let pool = this.#pools.get(connectMs);
    if (!pool)
      this.#pools.set(
        connectMs,
        (pool = new Agent({
          connectTimeout: connectMs,
          keepAliveTimeout: 30_000,
          connections: this.config.upstream.max_connections,
        })),
      );
    return pool;
  }

  /** Marks a request as served by this runtime until the returned function is called. */
  hold(): () => void {
    this.#inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#inFlight > 0) return;
      const idle = this.#idle;
      this.#idle = undefined;
      idle?.();
    };
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Resolves once no request holds this runtime (at once when none does). */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.#idle;
      this.#idle = () => {
        before?.();
        resolve();
      };
    });
  }

  /** Closes the upstream pools; undici lets requests already sent finish first. */
  async close(): Promise<void> {
    for (const p of this.chatProviders.values()) if (p instanceof HttpChatProvider) p.close();
    await Promise.all([this.dispatcher.close(), ...[...this.#pools.values()].map((p) => p.close())]);
  }
}

/** Holder of the runtime in force; replaced whole on reload. */
export type RuntimeRef = { current: Runtime };
