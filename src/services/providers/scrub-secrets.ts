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

/** `text` with every occurrence of each secret replaced by `[redacted]` (a short list: a run-time token). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}

/** 31 ** (minSecretLength - 1) mod 2^32: a character's factor in the hash as it leaves the window. */
const outFactor = Array.from({ length: minSecretLength - 1 }).reduce<number>((f) => Math.imul(f, 31), 1);

/** The hash of the `minSecretLength` characters of `text` from `at`. */
function headHash(text: string, at: number): number {
  let h = 0;
  for (let j = 0; j < minSecretLength; j++) h = (Math.imul(h, 31) + text.charCodeAt(at + j)) | 0;
  return h;
}

/**
 * `scrubSecrets` over a fixed list, compiled once (per provider, per config): the secrets indexed by
 * the hash of their first characters, so a text costs one hash a position whatever the number of
 * secrets. Scrubbing each secret in turn cost every relayed header value one search per client
 * key: 0.8 ms a relayed answer with 10,000 keys (bench/scrub-micro.ts). At a position, the longest
 * secret starting there is replaced whole.
 */
export function secretMatcher(secrets: readonly string[]): (text: string) => string {
  const byHead = new Map<number, string[]>();
  // Longest first within a bucket, so a secret that contains another is replaced whole.
  const sorted = [...new Set(secrets)].filter((s) => s.length >= minSecretLength).sort((a, b) => b.length - a.length);
  for (const s of sorted) {
    const h = headHash(s, 0);
    const bucket = byHead.get(h);
    if (bucket) bucket.push(s);
    else byHead.set(h, [s]);
  }
  if (byHead.size === 0) return (text) => text;
  return (text) => {
    let out: string | undefined;
    let from = 0;
    let i = 0;
    let h = text.length >= minSecretLength ? headHash(text, 0) : 0;
    while (i + minSecretLength <= text.length) {
      const found = byHead.get(h)?.find((s) => text.startsWith(s, i));
      if (found !== undefined) {
        out = (out ?? '') + text.slice(from, i) + '[redacted]';
        from = i += found.length;
        if (i + minSecretLength <= text.length) h = headHash(text, i);
        continue;
      }
      // Rolled one character on: the first one's share out, the next one's in (mod 2^32 throughout).
      h = (Math.imul(h - Math.imul(text.charCodeAt(i), outFactor), 31) + text.charCodeAt(i + minSecretLength)) | 0;
      i++;
    }
    return out === undefined ? text : out + text.slice(from);
  };
}
