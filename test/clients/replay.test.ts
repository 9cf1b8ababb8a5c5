// Every stored request of a real client (test/clients/fixtures/: Claude Code, Codex CLI, Gemini
// CLI, the AI SDK providers, LangChain, the OpenAI Agents SDK, the official SDKs' discovery calls) replayed byte for byte against a running polygate, on every upstream
// type (echo and the four emulators), only the model name changed. Each must get a 2xx and an
// answer (or stream) the client's own format accepts; on the relayed route (the upstream speaks
// the client's format) the upstream must receive the client's body byte-identical except the
// model name, and the client's anthropic-* headers.
import t from 'tap';
import { models, startHarness, upstreamKeys, upstreamNames, type UpstreamName } from '../e2e/matrix/harness.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { loadFixtures, rawBody, type Fixture } from './fixtures.ts';
import { checkAnswer, familyOf, type Family } from './wire-answer.ts';

const fixtures = loadFixtures();
const h = await startHarness();
t.teardown(() => h.close());

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The fixture's path and body with `model` in place of the model name the client used. */
function withModel(f: Fixture, model: string): { path: string; raw: string | undefined } {
  const raw = rawBody(f);
  // Gemini names the model in the path (generateContent, countTokens, models.get).
  if (/^\/v1(beta)?\/models\/[^/?]+/.test(f.path))
    return { path: f.path.replace(/^(\/v1(?:beta)?\/models\/)[^/:?]+/, `$1${model}`), raw };
  const sent = typeof f.body === 'object' && f.body !== null ? (f.body as { model?: unknown }).model : undefined;
  if (raw === undefined || typeof sent !== 'string') return { path: f.path, raw };
  // The top-level "model" member is the first one in every client seen; its value is swapped in
  // place so every other byte stays as the client wrote it.
  const re = new RegExp(`("model"\\s*:\\s*)${escapeRe(JSON.stringify(sent))}`);
  return { path: f.path, raw: raw.replace(re, (_, key: string) => `${key}${JSON.stringify(model)}`) };
}

/** The client's headers, its credential replaced by polygate's key in the same header. */
function headersOf(f: Fixture, family: Family | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(f.headers)) if (v !== '<redacted>' && k !== 'accept-encoding') out[k] = v;
  if ('x-api-key' in f.headers) out['x-api-key'] = TEST_KEY;
  else if ('x-goog-api-key' in f.headers || family === 'gemini') out['x-goog-api-key'] = TEST_KEY;
  else out.authorization = `Bearer ${TEST_KEY}`;
  return out;
}

const isStream = (f: Fixture, family: Family | undefined): boolean =>
  family === 'gemini'
    ? f.path.includes(':streamGenerateContent')
    : typeof f.body === 'object' && f.body !== null && (f.body as { stream?: unknown }).stream === true;

/**
 * Relayed untouched when the upstream speaks the client's format; a Responses request only when
 * polygate keeps no state for it (README, "pass-through": `store: false`, no previous_response_id).
 */
function relayed(f: Fixture, family: Family | undefined, upstream: UpstreamName): boolean {
  if (family !== upstream) return false;
  if (family !== 'openai-responses') return true;
  const b = f.body as { store?: unknown; previous_response_id?: unknown };
  return b.store === false && b.previous_response_id === undefined && !(rawBody(f) ?? '').includes('"item_reference"');
}

t.ok(fixtures.length > 0, 'fixtures are stored');
for (const f of fixtures) {
  const family = familyOf(f.path);
  t.test(`${f.file} (${f.client} ${f.method} ${f.path.split('?')[0]})`, async (t) => {
    for (const upstream of upstreamNames) {
      const emu = upstream === 'echo' ? undefined : h.emulators[upstream];
      const pass = relayed(f, family, upstream);
      t.test(`${upstream}${pass ? ' (relayed)' : ''}`, async (t) => {
        emu?.reset();
        const { path, raw } = withModel(f, models[upstream].client);
        const res = await fetch(`${h.gw.url}${path}`, { method: f.method, headers: headersOf(f, family), body: raw });
        const text = await res.text();
        t.ok(
          res.status >= 200 && res.status < 300,
          `2xx (got ${res.status}${res.status >= 300 ? `: ${text.slice(0, 500)}` : ''})`,
        );
        if (res.status >= 300) return;
        // Discovery (model lists, token counts): answered as JSON, by polygate or the upstream.
        if (family === undefined) return void t.doesNotThrow(() => JSON.parse(text), 'a JSON answer');
        t.same(
          checkAnswer(family, isStream(f, family), res.headers.get('content-type') ?? '', text),
          [],
          `a well-formed ${family} ${isStream(f, family) ? 'stream' : 'answer'}`,
        );
        if (!emu) return;
        const got = emu.requests.at(-1);
        t.ok(got, 'the upstream was called');
        if (!pass || !got) return;
        const expected = withModel(f, models[upstream].upstream);
        t.ok(
          got.raw === expected.raw,
          'the upstream received the client’s body byte for byte, only the model name changed',
        );
        if (got.raw !== expected.raw) t.same(got.body, JSON.parse(expected.raw ?? 'null'), 'where the bodies differ');
        for (const name of ['anthropic-beta', 'anthropic-version'])
          if (f.headers[name] !== undefined) t.equal(got.headers[name], f.headers[name], `${name} forwarded`);
        const key =
          family === 'anthropic'
            ? got.headers['x-api-key']
            : family === 'gemini'
              ? got.headers['x-goog-api-key']
              : got.headers.authorization;
        t.match(
          String(key),
          upstreamKeys[upstream as Exclude<UpstreamName, 'echo'>],
          'the upstream’s key, not the client’s',
        );
      });
    }
  });
}
