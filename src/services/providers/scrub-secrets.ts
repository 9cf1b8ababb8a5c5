import type { GatewayConfig } from '../../infra/config/gateway-config.ts';

/** Shorter values are not scrubbed: they would match ordinary words in an error text. */
const minSecretLength = 8;

/**
 * Every secret the config holds: provider keys and header values (an upstream may echo them back,
 * misconfigured or hostile) and client key secrets. Upstream text passes through `scrubSecrets`
 * before it is relayed to a client or embedded in an error message.
 */
export function secretsOf(config: GatewayConfig): string[] {
  const all = new Set<string>();
  for (const p of Object.values(config.providers)) {
    if (p.api_key) all.add(p.api_key);
    // Bedrock's AWS secret and session token (the access key id is an identifier, not a secret).
    if (p.secret_access_key) all.add(p.secret_access_key);
    if (p.session_token) all.add(p.session_token);
    // Azure's Entra ID client secret (its tokens are fetched at run time: the provider scrubs those).
    if (p.client_secret) all.add(p.client_secret);
    for (const v of Object.values(p.headers ?? {})) all.add(v);
  }
  for (const k of config.keys) if (k.secret) all.add(k.secret);
  // Longest first, so a secret that contains another is replaced whole.
  return [...all].filter((s) => s.length >= minSecretLength).sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each secret replaced by `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}
