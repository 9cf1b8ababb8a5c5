// A SearXNG-style search API and a small web of pages on one loopback server, for the hosted
// web_search / web_fetch polygate runs (docs/hosted-tools.md).
// `GET /search?q=…&format=json` answers SearXNG's JSON (`results: [{title, url, content,
// publishedDate}]`): two pages of this server, and one page each on `allowed.example` and
// `blocked.example` for domain filters. Pages: `/page/a`, `/page/b` (HTML), `/big` (more bytes than
// any limit a test sets), `/slow` (headers, then nothing), `/redirect` (302 to /page/a).
// `fail: true` makes /search answer 500; `lead` (when set) is put before those results (the client
// suite puts a marker only the search can show there).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SearchResult = { title: string; url: string; content: string };

export type SearchWeb = {
  url: string;
  /** The queries /search received, in order. */
  queries: string[];
  /** Every request to /api/*: a search API of another shape (Brave, Tavily, Exa style). */
  api: Array<{ method: string; path: string; headers: Record<string, unknown>; body: unknown }>;
  fetched: string[];
  fail: boolean;
  lead: SearchResult | undefined;
  close(): Promise<void>;
};

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title><style>p{color:red}</style></head>` +
  `<body><nav><a href="/">Home</a></nav><h1>${title}</h1><p>${body}</p><script>var x = 1;</script></body></html>`;

export async function startSearchWeb(): Promise<SearchWeb> {
  const queries: string[] = [];
  const api: SearchWeb['api'] = [];
  const fetched: string[] = [];
  const open = new Set<ServerResponse>();
  const state: { fail: boolean; lead: SearchResult | undefined } = { fail: false, lead: undefined };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname.startsWith('/api/')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        api.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: { ...req.headers },
          body: text ? JSON.parse(text) : undefined,
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        // Brave's shape: web.results[].{title, url, description, page_age}; Tavily's: results[].{title, url, content}.
        res.end(
          JSON.stringify(
            u.pathname === '/api/brave'
              ? {
                  web: {
                    results: [
                      { title: 'B', url: 'https://brave.example/', description: 'from brave', page_age: '2025-01-01' },
                    ],
                  },
                }
              : { results: [{ title: 'T', url: 'https://tavily.example/', content: 'from tavily', score: 0.9 }] },
          ),
        );
      });
      return;
    }
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (u.pathname === '/search') {
      queries.push(u.searchParams.get('q') ?? '');
      if (state.fail) {
        res.writeHead(500, { 'content-type': 'text/html' });
        return res.end('<h1>Internal Server Error</h1>');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          query: u.searchParams.get('q'),
          number_of_results: 4,
          results: [
            ...(state.lead ? [state.lead] : []),
            {
              title: 'Polygate A',
              url: `${base}/page/a`,
              content: 'Polygate translates protocols.',
              publishedDate: '2026-01-02T00:00:00',
            },
            {
              title: 'Polygate B',
              url: `${base}/page/b`,
              content: 'Polygate runs web search itself.',
              publishedDate: null,
            },
            { title: 'Allowed', url: 'https://docs.allowed.example/x', content: 'allowed domain' },
            { title: 'Blocked', url: 'https://blocked.example/y', content: 'blocked domain' },
          ],
        }),
      );
    }
    fetched.push(u.pathname);
    if (u.pathname === '/page/a' || u.pathname === '/page/b') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(page(`Page ${u.pathname.slice(-1).toUpperCase()}`, `The answer is 42 on ${u.pathname}.`));
    }
    if (u.pathname === '/redirect') {
      res.writeHead(302, { location: '/page/a' });
      return res.end();
    }
    if (u.pathname === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      // 8 MB, written as the socket takes it; a fetch that stops reading ends it.
      let left = 128;
      const more = (): void => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    if (u.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
      open.add(res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end(page('Not found', 'nothing here'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    api,
    fetched,
    get fail() {
      return state.fail;
    },
    set fail(v: boolean) {
      state.fail = v;
    },
    get lead() {
      return state.lead;
    },
    set lead(v: SearchResult | undefined) {
      state.lead = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
