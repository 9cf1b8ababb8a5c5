// SigV4 signing of Bedrock calls with the AWS SDK's own packages: @smithy/signature-v4 signs,
// @aws-crypto/sha256-js hashes, and @aws-sdk/credential-providers finds the credentials the way
// the AWS CLI and SDKs do (docs/providers.md, "Bedrock"): static keys (with a session token for
// temporary ones), a named profile of the shared files, or the default chain (environment, shared
// files, SSO, web identity, container and instance roles). Providers from that package cache the
// credentials and fetch new ones before temporary ones expire. The three are imported at the first
// signature (or credential fetch), so gateways without a SigV4 Bedrock provider never load them.
import type { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderConfig } from '../../../infra/config/gateway-config.ts';

/** Static credentials or a provider of them, as the signer takes them. */
export type AwsCredentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];
type CredentialProvider = ReturnType<typeof fromNodeProviderChain>;
type ProvidersModule = typeof import('@aws-sdk/credential-providers');

/** The provider `make` builds, built at its first call: one provider, so its cache is kept. */
function loadedAtFirstCall(make: (m: ProvidersModule) => CredentialProvider): CredentialProvider {
  let provider: Promise<CredentialProvider> | undefined;
  return async (options) => (await (provider ??= import('@aws-sdk/credential-providers').then(make)))(options);
}

/** The credentials a Bedrock provider config names. */
export function awsCredentialsOf(cfg: ProviderConfig): AwsCredentials {
  if (cfg.access_key_id && cfg.secret_access_key)
    return {
      accessKeyId: cfg.access_key_id,
      secretAccessKey: cfg.secret_access_key,
      ...(cfg.session_token ? { sessionToken: cfg.session_token } : {}),
    };
  const { profile } = cfg;
  if (profile) return loadedAtFirstCall((m) => m.fromIni({ profile }));
  return loadedAtFirstCall((m) => m.fromNodeProviderChain());
}

export type SignedHeaders = Record<string, string>;

/** Signs POSTs to one service in one region. */
export class AwsSigner {
  readonly #options: Omit<ConstructorParameters<typeof SignatureV4>[0], 'sha256'>;
  #signer: Promise<SignatureV4> | undefined;
  constructor(credentials: AwsCredentials, region: string, service: string) {
    this.#options = { credentials, region, service };
  }

  #signerOf(): Promise<SignatureV4> {
    return (this.#signer ??= Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]).then(
      ([{ SignatureV4 }, { Sha256 }]) => new SignatureV4({ ...this.#options, sha256: Sha256 }),
    ));
  }

  /** The headers of a signed POST of `body` to `url` (`authorization`, `x-amz-date`, the session token). */
  async sign(url: URL, headers: Record<string, string>, body: string): Promise<SignedHeaders> {
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const signed = await (
      await this.#signerOf()
    ).sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...headers, host: url.host },
      body,
    });
    return signed.headers;
  }
}
