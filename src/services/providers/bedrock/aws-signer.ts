// SigV4 signing of Bedrock calls with the AWS SDK's own packages: @smithy/signature-v4 signs,
// @aws-crypto/sha256-js hashes, and @aws-sdk/credential-providers finds the credentials the way
// the AWS CLI and SDKs do (docs/providers.md, "Bedrock"): static keys (with a session token for
// temporary ones), a named profile of the shared files, or the default chain (environment, shared
// files, SSO, web identity, container and instance roles). Providers from that package cache the
// credentials and fetch new ones before temporary ones expire.
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromIni, fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderConfig } from '../../../infra/config/gateway-config.ts';

/** Static credentials or a provider of them, as the signer takes them. */
export type AwsCredentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

/** The credentials a Bedrock provider config names. */
export function awsCredentialsOf(cfg: ProviderConfig): AwsCredentials {
  if (cfg.access_key_id && cfg.secret_access_key)
    return {
      accessKeyId: cfg.access_key_id,
      secretAccessKey: cfg.secret_access_key,
      ...(cfg.session_token ? { sessionToken: cfg.session_token } : {}),
    };
  if (cfg.profile) return fromIni({ profile: cfg.profile });
  return fromNodeProviderChain();
}

export type SignedHeaders = Record<string, string>;

/** Signs POSTs to one service in one region. */
export class AwsSigner {
  readonly #signer: SignatureV4;
  constructor(credentials: AwsCredentials, region: string, service: string) {
    this.#signer = new SignatureV4({ credentials, region, service, sha256: Sha256 });
  }

  /** The headers of a signed POST of `body` to `url` (`authorization`, `x-amz-date`, the session token). */
  async sign(url: URL, headers: Record<string, string>, body: string): Promise<SignedHeaders> {
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const signed = await this.#signer.sign({
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
