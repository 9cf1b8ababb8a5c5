// Keeps addresses a caller supplies (notify_hook; later url / image_url fetches) from reaching
// polygate's own network: loopback, private ranges, link-local (cloud metadata at
// 169.254.169.254), CGNAT, multicast, unspecified, IPv6 forms that embed such an IPv4 address,
// and IPv6 transition prefixes (NAT64, Teredo, 6to4) and the discard prefix. `outbound.allow_private_addresses: true` turns the guard off (local development,
// tests with a loopback receiver).
//
// Checking a name and then connecting by name would let DNS answer differently the second time
// (DNS rebinding). So the check happens inside the connection's own `lookup`: the addresses that
// were checked are the ones connected to. Literal IP hosts never go through lookup and are
// checked before the request.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';

export class SsrfRefused extends Error {
  override readonly name = 'SsrfRefused';
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", incl. unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
  // Transition prefixes route to an IPv4 host chosen by the address's bits (or by a relay), which
  // a check of the IPv6 address alone cannot judge; a caller's hook has no need for them.
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['64:ff9b:1::', 48], // NAT64 local-use prefix
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['100::', 64], // discard-only
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Expands an IPv6 text (with `::` and a dotted IPv4 tail) into eight 16-bit groups. */
function ipv6Groups(addr: string): number[] {
  let a = addr.split('%')[0].toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const [p, q, r, s] = dotted[1].split('.').map(Number);
    a = a.slice(0, -dotted[1].length) + `${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, tail] = a.includes('::') ? a.split('::') : [a, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g || '0', 16));
}

const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries where a stack would route to that IPv4 host:
 * IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, and 6to4
 * `2002:AABB:CCDD::`.
 */
export function embeddedIpv4(addr: string): string | undefined {
  const g = ipv6Groups(addr);
  if (g.length !== 8) return undefined;
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6], g[7]);
  if (zero(0, 6) && (g[6] !== 0 || g[7] > 1)) return v4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6], g[7]);
  if (g[0] === 0x2002) return v4(g[1], g[2]);
  return undefined;
}

/** Whether an IP address (v4 or v6 text) is one the guard refuses. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  const inner = embeddedIpv4(address);
  if (inner !== undefined && blocked.check(inner, 'ipv4')) return true;
  return blocked.check(address.split('%')[0], 'ipv6');
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((ok, fail) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? fail(err) : ok(addrs))),
  );
}

/** Resolves `host` (every address) and refuses it if any address is forbidden. */
export async function resolveChecked(host: string): Promise<LookupAddress[]> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  // One wording for every refusal: saying what a name resolves to (or that it does not resolve)
  // would let a caller map polygate's internal network through error messages.
  const refused = (): SsrfRefused =>
    new SsrfRefused(`host ${bare} is not allowed (private, loopback, internal or unresolvable)`);
  if (isIP(bare)) {
    if (isForbiddenAddress(bare)) throw refused();
    return [{ address: bare, family: isIP(bare) }];
  }
  let addrs: LookupAddress[];
  try {
    addrs = await resolveAll(bare);
  } catch {
    throw refused();
  }
  // One internal address is enough to refuse: a resolver may hand any of them to the connection.
  if (addrs.length === 0 || addrs.some((a) => isForbiddenAddress(a.address))) throw refused();
  return addrs;
}

/** Checks an outbound URL: http(s) only, and (unless allowed) no internal address. */
export async function checkOutboundUrl(url: string, allowPrivate: boolean): Promise<URL> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SsrfRefused('not an absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SsrfRefused(`scheme ${u.protocol} is not allowed`);
  if (!allowPrivate) await resolveChecked(u.hostname);
  return u;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that answers only with checked addresses. */
function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  resolveChecked(hostname).then(
    (addrs) => (options.all ? callback(null, addrs) : callback(null, addrs[0].address, addrs[0].family)),
    (e: Error) => callback(Object.assign(e, { code: 'EPOLYGATE_SSRF' }), ''),
  );
}

const agents = new Map<boolean, Agent>();

/**
 * The dispatcher for caller-supplied URLs. With the guard on, its connections resolve through
 * `guardedLookup`, so the checked address is the connected one. undici's `request` follows no
 * redirects unless asked, so a 3xx cannot bounce a request inward either.
 */
export function outboundAgent(allowPrivate: boolean): Agent {
  let a = agents.get(allowPrivate);
  if (!a) {
    a = new Agent({
      connect: allowPrivate ? { timeout: 10_000 } : { timeout: 10_000, lookup: guardedLookup as never },
      keepAliveTimeout: 10_000,
      connections: 64,
    });
    agents.set(allowPrivate, a);
  }
  return a;
}

export async function closeOutboundAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}
