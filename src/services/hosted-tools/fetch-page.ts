// One page fetched for a hosted web_fetch: the URL is the model's (so the caller's), so it goes
// through the outbound SSRF guard (src/infra/outbound/ssrf-guard.ts), redirects included, each
// hop checked; bounded in bytes (a longer page is cut, and says so) and in time; HTML becomes
// text with html-to-text.
import { createRequire } from 'node:module';
import { request } from 'undici';
import { checkOutboundUrl, outboundAgent, SsrfRefused } from '../../infra/outbound/ssrf-guard.ts';

export type FetchLimits = { maxBytes: number; timeoutMs: number; maxChars: number; allowPrivate: boolean };
export type FetchedPage = { url: string; title?: string; text: string; truncated: boolean };

/** Anthropic's web_fetch error codes: what the model and the client are told. */
export type FetchErrorCode = 'url_not_allowed' | 'url_not_accessible' | 'unsupported_content_type' | 'invalid_input';

export class FetchFailed extends Error {
  readonly code: FetchErrorCode;
  /** The metric's outcome: why, in one bounded word. */
  readonly outcome: 'refused' | 'timeout' | 'error';
  constructor(code: FetchErrorCode, message: string, outcome: 'refused' | 'timeout' | 'error' = 'error') {
    super(message);
    this.code = code;
    this.outcome = outcome;
  }
}

const MAX_REDIRECTS = 5;
/** html-to-text (and its HTML parser, ~35 ms of CPU to load) is required at the first page converted, not at start. */
let convert: (typeof import('html-to-text'))['convert'] | undefined;

function textOf(body: string, contentType: string, maxChars: number): { title?: string; text: string } {
  if (!/html|xml/i.test(contentType)) return { text: body.slice(0, maxChars) };
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
  convert ??= (createRequire(import.meta.url)('html-to-text') as typeof import('html-to-text')).convert;
  const text = convert(body, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'nav', format: 'skip' },
    ],
  });
  return { ...(title ? { title } : {}), text: text.slice(0, maxChars) };
}

async function readBounded(
  body: AsyncIterable<Buffer> & { destroy(): void },
  max: number,
): Promise<{ buf: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    const room = max - size;
    if (c.length >= room) {
      chunks.push(c.subarray(0, room));
      body.destroy();
      return { buf: Buffer.concat(chunks), cut: true };
    }
    chunks.push(c);
    size += c.length;
  }
  return { buf: Buffer.concat(chunks), cut: false };
}

export async function fetchPage(raw: string, limits: FetchLimits, signal: AbortSignal): Promise<FetchedPage> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(limits.timeoutMs)]);
  let url = raw;
  for (let hop = 0; ; hop++) {
    let checked: URL;
    try {
      checked = await checkOutboundUrl(url, limits.allowPrivate);
    } catch (e) {
      throw new FetchFailed(
        hop === 0 && !(e instanceof SsrfRefused) ? 'invalid_input' : 'url_not_allowed',
        (e as Error).message,
        'refused',
      );
    }
    try {
      const res = await request(checked, {
        method: 'GET',
        headers: { accept: 'text/html, text/plain;q=0.9, */*;q=0.5', 'user-agent': 'polygate-web-fetch' },
        dispatcher: outboundAgent(limits.allowPrivate),
        signal: deadline,
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        await res.body.dump();
        if (hop >= MAX_REDIRECTS) throw new FetchFailed('url_not_accessible', 'too many redirects');
        url = new URL(location, checked).toString();
        continue;
      }
      if (res.statusCode >= 400) {
        await res.body.dump();
        throw new FetchFailed('url_not_accessible', `the page answered ${res.statusCode}`);
      }
      const type = String(res.headers['content-type'] ?? 'text/html');
      if (!/^text\/|json|xml|html/i.test(type)) {
        await res.body.dump();
        throw new FetchFailed('unsupported_content_type', `content type ${type.split(';')[0]} is not read`);
      }
      const { buf, cut } = await readBounded(res.body as never, limits.maxBytes);
      const page = textOf(buf.toString('utf8'), type, limits.maxChars);
      const truncated = cut || page.text.length >= limits.maxChars;
      return {
        url: checked.toString(),
        ...page,
        text: truncated
          ? `${page.text}\n[polygate: page cut at ${limits.maxBytes} bytes / ${limits.maxChars} characters]`
          : page.text,
        truncated,
      };
    } catch (e) {
      if (e instanceof FetchFailed) throw e;
      const err = e as Error & { code?: string };
      if (err.code === 'EPOLYGATE_SSRF' || err.cause instanceof SsrfRefused)
        throw new FetchFailed('url_not_allowed', err.message, 'refused');
      const timedOut = deadline.aborted && !signal.aborted;
      throw new FetchFailed(
        'url_not_accessible',
        timedOut ? `no answer within ${limits.timeoutMs} ms` : err.message,
        timedOut ? 'timeout' : 'error',
      );
    }
  }
}
