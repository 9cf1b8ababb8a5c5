// The HTTP wire fuzzer (issue #30, "the rule behind them"): a running polygate process, with every
// family's routes served by emulated upstreams (test/emulators/) and the built-in providers, is
// sent structure-aware mutants of valid requests of each route (test/fixtures/, mutated by
// mutate-json.ts: wrong types, huge strings, control characters, deep nesting, unknown fields),
// with odd model names (in bodies and in Gemini's path) and odd headers (codings, trace context,
// request ids, versions). It fails when the process exits, when polygate answers a 5xx of its own
// (500: an unhandled error; 502/503/504 are upstream or availability answers and fine), when an
// answer does not complete, or when /healthz stops answering. `npm test` runs a short pass;
// FUZZ_RUNS=20000 (npm run fuzz) a long one. The seed of a failure is printed; FUZZ_SEED replays it.
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import t from 'tap';
import { startEmulators } from '../helpers/gateway-with-upstreams.ts';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { fixtureJsons } from './fixtures.ts';
import { mutated, nastyValue, wireText, type Json } from './mutate-json.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 150);
const emulators = await startEmulators({ oai: 'chat', anth: 'anthropic', gem: 'gemini', resp: 'responses' });
const gw = await startGateway(
  testConfig({
    providers: { ...emulators.providers, sandbox: { type: 'sandbox-tune' } },
    models: {
      // Globs that pass the client's name through (the default config's shape), one per upstream
      // format: every client format meets a relay and translations.
      'gpt-*': { routes: [{ provider: 'oai' }] },
      'claude-*': { routes: [{ provider: 'anth' }] },
      'gemini-*': { routes: [{ provider: 'gem' }] },
      'resp-*': { routes: [{ provider: 'resp' }] },
      'tune-v3-0': { routes: [{ provider: 'sandbox', model: 'sandbox-v3' }] },
    },
    tune: { music_models: ['tune-v3-0'], default_model: 'tune-v3-0', sandbox_delay_ms: 20, poll_interval_ms: 50 },
    limits: { max_body_bytes: 4 * 1024 * 1024 },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await emulators.close();
});

/** Model names: the routed ones, and what a hostile client puts in a name. */
const models = ['echo', 'gpt-4.1', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'resp-4o', 'unknown-model'];
const nastyModels = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...models) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('gpt-', 'claude-', 'gemini-', 'resp-', ''),
        fc.constantFrom('a\nb', 'a\rb', 'a\u0000b', 'a\u007fb', 'é模型', '\uD800', 'x'.repeat(300), '%0A', ' ', '/..'),
      )
      .map(([p, s]) => p + s),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

type Route = { method: 'POST' | 'GET' | 'DELETE'; path: (model: string) => string; seeds: unknown[]; json: boolean };

const withModels = (seeds: unknown[]): unknown[] =>
  seeds.flatMap((s) => models.map((m) => ({ ...(s as Record<string, unknown>), model: m })));
const chat = withModels(fixtureJsons('openai-chat', '.request.json'));
const messages = withModels(fixtureJsons('anthropic-messages', '.request.json'));
const responses = withModels(fixtureJsons('openai-responses', '.request.json'));
const gemini = fixtureJsons('gemini', '.request.json');
const speech = fixtureJsons('openai-audio', '.request.json');
const tune = [
  { prompt: '[Verse]\nla la', title: 'Song', tags: 'pop', mv: 'tune-v3-0' },
  { gpt_description_prompt: 'a calm song', make_instrumental: true },
];
/**
 * A name as a path segment: bytes outside the unreserved set percent-encoded, but `%` kept, so
 * `%0A` arrives as an encoded LF (a lone surrogate, which has no UTF-8, goes as U+FFFD).
 */
const seg = (m: string): string =>
  [...Buffer.from(m, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~%]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');
const geminiPath = (verb: string) => (m: string) => `/v1beta/models/${seg(m)}:${verb}`;

const routes: Route[] = [
  { method: 'POST', path: () => '/v1/chat/completions', seeds: chat, json: true },
  { method: 'POST', path: () => '/v1/messages', seeds: messages, json: true },
  { method: 'POST', path: () => '/v1/messages/count_tokens', seeds: messages, json: true },
  { method: 'POST', path: () => '/v1/responses', seeds: responses, json: true },
  { method: 'POST', path: () => '/v1/responses/input_tokens', seeds: responses, json: true },
  { method: 'POST', path: geminiPath('generateContent'), seeds: gemini, json: true },
  { method: 'POST', path: (m) => `${geminiPath('streamGenerateContent')(m)}?alt=sse`, seeds: gemini, json: true },
  { method: 'POST', path: geminiPath('countTokens'), seeds: gemini, json: true },
  { method: 'POST', path: () => '/v1/audio/speech', seeds: speech, json: true },
  { method: 'POST', path: () => '/tune/submit/music', seeds: tune, json: true },
  { method: 'POST', path: () => '/tune/fetch', seeds: [{ ids: ['x'] }, { ids: [], action: 'CHORUS' }], json: true },
  { method: 'GET', path: (m) => `/v1/models/${seg(m)}`, seeds: [null], json: false },
  { method: 'GET', path: (m) => `/v1/responses/${seg(m)}`, seeds: [null], json: false },
  { method: 'DELETE', path: (m) => `/v1/responses/${seg(m)}`, seeds: [null], json: false },
  { method: 'GET', path: (m) => `/tune/fetch/${seg(m)}`, seeds: [null], json: false },
];

/** Header values a client may send (Node's client refuses CR, LF and NUL, as any HTTP parser would). */
const headerCases: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom(
    'x-request-id',
    'traceparent',
    'tracestate',
    'baggage',
    'anthropic-version',
    'anthropic-beta',
    'openai-beta',
    'accept',
    'accept-encoding',
    'x-stainless-lang',
    'connection',
    'te',
    'x-forwarded-for',
    'idempotency-key',
  ),
  fc.oneof(
    fc.constantFrom(
      '',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-0000000000000000-01',
      'a=b,'.repeat(400),
      'k=' + 'v'.repeat(6000),
      '2023-06-01',
      'responses=experimental',
      'text/event-stream',
      'keep-alive, x-polygate-route',
      'trailers',
      'é\u00ff\u0080',
      '\t',
    ),
    fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  ),
  { maxKeys: 3 },
);

type Case = {
  route: number;
  model: string;
  body: Json;
  headers: Record<string, string>;
  coding: 'none' | 'gzip' | 'GZIP' | 'bad-gzip';
  contentType: string;
};

const cases: fc.Arbitrary<Case> = fc.nat({ max: routes.length - 1 }).chain((route) =>
  fc.record({
    route: fc.constant(route),
    model: nastyModels,
    body: routes[route].json
      ? fc.oneof({ weight: 9, arbitrary: mutated(routes[route].seeds, 3) }, { weight: 1, arbitrary: nastyValue })
      : fc.constant(null),
    headers: headerCases,
    coding: fc.constantFrom('none', 'none', 'none', 'gzip', 'GZIP', 'bad-gzip'),
    contentType: fc.constantFrom(
      'application/json',
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/vnd.api+json',
    ),
  }),
);

type Answer = { status: number; body: string } | { error: string };

/** One request over node:http (fetch would refuse some of the headers); the whole answer is read. */
function send(c: Case): Promise<Answer> {
  const r = routes[c.route];
  const model = c.model;
  let body: Buffer | undefined;
  if (r.json) {
    // The body's own model, when it names one, is the fuzzed model half of the time.
    const value =
      c.body !== null && typeof c.body === 'object' && !Array.isArray(c.body) && 'model' in c.body && model.length % 2
        ? { ...c.body, model }
        : c.body;
    const text = Buffer.from(wireText(value));
    body =
      c.coding === 'gzip' || c.coding === 'GZIP'
        ? gzipSync(text)
        : c.coding === 'bad-gzip'
          ? Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), text.subarray(0, 64)])
          : text;
  }
  const headers: Record<string, string> = {
    ...c.headers,
    authorization: `Bearer ${TEST_KEY}`,
    'x-api-key': TEST_KEY,
    'x-goog-api-key': TEST_KEY,
    ...(body ? { 'content-type': c.contentType, 'content-length': String(body.length) } : {}),
    ...(body && c.coding !== 'none' ? { 'content-encoding': c.coding === 'GZIP' ? 'GZIP' : 'gzip' } : {}),
  };
  if (!('anthropic-version' in c.headers)) headers['anthropic-version'] = '2023-06-01';
  return new Promise((resolve) => {
    const req = request(
      `${gw.url}${r.path(model)}`,
      { method: r.method, headers, signal: AbortSignal.timeout(20_000) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e) => resolve({ error: `response: ${e.message}` }));
      },
    );
    req.on('error', (e) => resolve({ error: e.message }));
    req.end(body);
  });
}

async function healthy(): Promise<boolean> {
  try {
    return (await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status === 200;
  } catch {
    return false;
  }
}

/** 502, 503 and 504 say an upstream failed or nothing can serve now; any other 5xx is polygate's own fault. */
const ownFault = (status: number): boolean => status >= 500 && ![502, 503, 504].includes(status);

t.test(`${runs} mutated requests over every HTTP route leave polygate running and healthy`, async (t) => {
  let n = 0;
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(cases, async (c) => {
      const a = await send(c);
      n++;
      if (gw.process.exitCode !== null || gw.process.signalCode !== null)
        throw new Error(`the gateway exited (${gw.process.exitCode ?? gw.process.signalCode})`);
      if ('error' in a) {
        // The server may close a connection it refused (a 413 before the body ended): only a
        // hang (the 20 s abort) or a refused connection is a failure.
        if (/abort|ECONNREFUSED/i.test(a.error)) throw new Error(`request failed: ${a.error}`);
        return;
      }
      seen.set(a.status, (seen.get(a.status) ?? 0) + 1);
      if (ownFault(a.status)) throw new Error(`polygate answered ${a.status}: ${a.body.slice(0, 500)}`);
      if (n % 50 === 0 && !(await healthy())) throw new Error('/healthz stopped answering');
    }),
    {
      numRuns: runs,
      endOnFailure: true,
      ...(process.env.FUZZ_SEED !== undefined ? { seed: Number(process.env.FUZZ_SEED) } : {}),
    },
  );
  t.ok(await healthy(), '/healthz answers after the run');
  t.equal(gw.process.exitCode, null, 'the gateway is running');
  t.notMatch(gw.output(), /"msg":"unhandled error"/, 'no unhandled error was logged');
  t.comment(
    `${n} requests; statuses ${[...seen]
      .sort((a, b) => a[0] - b[0])
      .map(([s, k]) => `${s}×${k}`)
      .join(' ')}`,
  );
});
