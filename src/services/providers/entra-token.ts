// Entra ID access tokens for Azure OpenAI (docs/providers.md, "Azure OpenAI", `auth: entra`),
// fetched by Microsoft's own @azure/identity: a service principal's client secret
// (ClientSecretCredential) when `client_secret` is set, else DefaultAzureCredential (environment,
// workload identity, managed identity, Azure CLI…). The token is cached and fetched again before
// it expires (five minutes ahead, or from the library's refreshAfter hint), one fetch at a time.
// The library (about 300 modules, ~190 ms of CPU to load) is imported at the first fetch, so a
// gateway without `auth: entra` never loads it (bench/RESULTS.md, "Session 9: start-up").
import type { TokenCredential } from '@azure/identity';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';

export const cognitiveServicesScope = 'https://cognitiveservices.azure.com/.default';
/** A token this close to its expiry is not used: a request could outlive it. */
const refreshMarginMs = 5 * 60_000;

export class EntraTokenSource {
  readonly #cfg: ProviderConfig;
  #credential: TokenCredential | undefined;
  #cached: { token: string; refreshAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(cfg: ProviderConfig) {
    this.#cfg = cfg;
  }

  /** The credential the config names, created at the first fetch (the config schema checks tenant_id's form at load). */
  async #credentialOf(): Promise<TokenCredential> {
    if (this.#credential) return this.#credential;
    const cfg = this.#cfg;
    const { ClientSecretCredential, DefaultAzureCredential } = await import('@azure/identity');
    // A private or sovereign authority: instance discovery would ask login.microsoftonline.com about it.
    const authority = cfg.authority_host ? { authorityHost: cfg.authority_host, disableInstanceDiscovery: true } : {};
    this.#credential =
      cfg.client_secret && cfg.tenant_id && cfg.client_id
        ? new ClientSecretCredential(cfg.tenant_id, cfg.client_id, cfg.client_secret, authority)
        : new DefaultAzureCredential({
            ...authority,
            ...(cfg.tenant_id ? { tenantId: cfg.tenant_id } : {}),
            ...(cfg.client_id
              ? { managedIdentityClientId: cfg.client_id, workloadIdentityClientId: cfg.client_id }
              : {}),
          });
    return this.#credential;
  }

  /** The last token fetched (to scrub it from upstream text), if any. */
  get current(): string | undefined {
    return this.#cached?.token;
  }

  /** A token valid for a while yet; rejects with the library's error when none can be had. */
  token(): Promise<string> {
    if (this.#cached && Date.now() < this.#cached.refreshAt) return Promise.resolve(this.#cached.token);
    this.#pending ??= this.#fetch().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #fetch(): Promise<string> {
    const t = await (await this.#credentialOf()).getToken(cognitiveServicesScope);
    if (!t) throw new Error('the credential returned no token');
    const refreshAt = Math.min(t.refreshAfterTimestamp ?? Infinity, t.expiresOnTimestamp - refreshMarginMs);
    this.#cached = { token: t.token, refreshAt };
    return t.token;
  }
}
