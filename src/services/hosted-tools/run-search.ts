// One web search through a configured backend (src/services/hosted-tools/search-backends.ts): the
// request built from the backend's template, the results read by its paths, filtered by the
// client's domains. The backend is the operator's (often a SearXNG on the private network), so it
// is called directly, not through the SSRF guard that caller-supplied URLs go through.
import { request } from 'undici';
import type { WebSource } from '../../ir/chat-request.ts';
import type { SearchBackendSpec } from './search-backends.ts';
import { domainAllowed, type DomainFilter } from './domain-filter.ts';

export type SearchQuery = DomainFilter & { query: string; count: number; country?: string; language?: string };

/** A backend answered with nothing usable; `code` is what the model (and the client) are told. */
export class SearchFailed extends Error {
  readonly code: 'unavailable' | 'too_many_requests';
  constructor(code: 'unavailable' | 'too_many_requests', message: string) {
    super(message);
    this.code = code;
  }
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

function fill(template: string, q: SearchQuery, key: string): string {
  const values: Record<string, string> = {
    query: q.query,
    count: String(q.count),
    key,
    country: q.country ?? '',
    language: q.language ?? '',
  };
  return template.replace(/\{(query|count|key|country|language)\}/g, (_, k: string) => values[k]);
}

/** Templated strings of a JSON body; a value that is one placeholder keeps its own type. */
function fillBody(v: unknown, q: SearchQuery, key: string): unknown {
  if (typeof v === 'string') {
    if (v === '{count}') return q.count;
    if (v === '{allowed_domains}') return q.allowedDomains.length > 0 ? q.allowedDomains : undefined;
    if (v === '{blocked_domains}') return q.blockedDomains.length > 0 ? q.blockedDomains : undefined;
    const s = fill(v, q, key);
    return s === '' && v !== '' ? undefined : s;
  }
  if (Array.isArray(v)) return v.map((x) => fillBody(x, q, key));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const f = fillBody(x, q, key);
      if (f !== undefined) out[k] = f;
    }
    return out;
  }
  return v;
}

function at(v: unknown, path: string | undefined): unknown {
  if (!path) return undefined;
  let cur = v;
  for (const seg of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== ''
    ? v
    : Array.isArray(v)
      ? v.filter((x) => typeof x === 'string').join(' … ') || undefined
      : undefined;

export async function runSearch(b: SearchBackendSpec, q: SearchQuery, signal: AbortSignal): Promise<WebSource[]> {
  const url = new URL(b.url);
  for (const [k, t] of Object.entries(b.query)) {
    const v = fill(t, q, b.key);
    if (v !== '') url.searchParams.set(k, v);
  }
  const headers: Record<string, string> = {};
  for (const [k, t] of Object.entries(b.headers)) {
    const v = fill(t, q, b.key);
    if (v !== '' && !/^bearer\s*$/i.test(v)) headers[k] = v;
  }
  let body: string | undefined;
  if (b.method === 'POST') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(fillBody(b.body ?? {}, q, b.key));
  }
  let answer: unknown;
  try {
    const res = await request(url, {
      method: b.method,
      headers,
      body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(b.timeoutMs)]),
    });
    if (res.statusCode === 429) {
      await res.body.dump();
      throw new SearchFailed('too_many_requests', `search backend '${b.name}' answered 429`);
    }
    if (res.statusCode >= 300) {
      await res.body.dump();
      throw new SearchFailed('unavailable', `search backend '${b.name}' answered ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        res.body.destroy();
        throw new SearchFailed(
          'unavailable',
          `search backend '${b.name}' answered more than ${MAX_ANSWER_BYTES} bytes`,
        );
      }
      chunks.push(c as Buffer);
    }
    answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    if (e instanceof SearchFailed) throw e;
    throw new SearchFailed('unavailable', `search backend '${b.name}': ${(e as Error).message}`);
  }
  const list = at(answer, b.results);
  if (!Array.isArray(list)) throw new SearchFailed('unavailable', `search backend '${b.name}': no '${b.results}' list`);
  const out: WebSource[] = [];
  for (const r of list) {
    const u = text(at(r, b.fields.url));
    if (!u || !/^https?:\/\//i.test(u) || !domainAllowed(u, q)) continue;
    const title = text(at(r, b.fields.title));
    const snippet = text(at(r, b.fields.snippet));
    const date = text(at(r, b.fields.date));
    out.push({
      url: u,
      ...(title ? { title } : {}),
      ...(snippet ? { snippet: snippet.slice(0, 1000) } : {}),
      ...(date ? { date } : {}),
    });
    if (out.length >= q.count) break;
  }
  return out;
}
