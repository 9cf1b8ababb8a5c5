// The client's allowed / blocked domains of a hosted web search or fetch (Anthropic
// `allowed_domains` / `blocked_domains`, Responses `filters.allowed_domains`). A domain covers its
// subdomains; an entry written with a scheme or a path is read for its host.
export type DomainFilter = { allowedDomains: string[]; blockedDomains: string[] };

const hostOf = (entry: string): string =>
  entry
    .replace(/^[a-z]+:\/\//i, '')
    .split('/')[0]
    .toLowerCase()
    .replace(/^\*\./, '');

const covers = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);

export function domainAllowed(url: string, f: DomainFilter): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (f.blockedDomains.some((d) => covers(host, hostOf(d)))) return false;
  return f.allowedDomains.length === 0 || f.allowedDomains.some((d) => covers(host, hostOf(d)));
}
