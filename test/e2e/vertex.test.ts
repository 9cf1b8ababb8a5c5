// Vertex AI as an upstream (issue #26, docs/providers.md "Vertex AI"): every client family, through
// its official SDK, reaches Claude (rawPredict / streamRawPredict) and Gemini (generateContent /
// streamGenerateContent) on the Vertex emulator, with a token polygate obtained through
// google-auth-library from a service-account key (JWT verified by the emulator's token endpoint)
// and reused while valid; streamed and not, with a tool round trip; a key the token endpoint
// refuses is a 502 naming the provider; usage reaches the ledger; no token or key in logs.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';
import { chatDriver } from './matrix/drivers/chat-driver.ts';
import type { Driver } from './matrix/drivers/driver.ts';
import { geminiDriver } from './matrix/drivers/gemini-driver.ts';
import { messagesDriver } from './matrix/drivers/messages-driver.ts';
import { responsesDriver } from './matrix/drivers/responses-driver.ts';
import { toolArgPieces, toolArgs, weatherTool } from './matrix/fixtures.ts';

type Json = Record<string, unknown>;
const emu = await startVertexUpstream();
t.teardown(() => emu.close());
t.teardown(redirectGoogleTokens(`${emu.url}/token`));
const base = { type: 'vertex', project: emu.project, base_url: emu.url };
const app = await startInProcessApp(
  t,
  testConfig({
    providers: {
      vx: { ...base, region: 'us-east5', credentials_file: emu.keyFile },
      'vx-global': { ...base, region: 'global', credentials_file: emu.keyFile },
      'vx-bad': { ...base, region: 'us-east5', credentials_file: emu.wrongKeyFile },
    },
    models: {
      'm-vx-claude': { routes: [{ provider: 'vx', model: 'claude-sonnet-4-5@20250929' }] },
      'm-vx-gemini': { routes: [{ provider: 'vx-global', model: 'gemini-2.5-flash' }] },
      'm-vx-bad': { routes: [{ provider: 'vx-bad', model: 'gemini-2.5-flash' }] },
    },
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50, prices: { models: { 'm-vx-claude': { input: 3, output: 15 } } } },
  }),
);
const drivers: Driver[] = [
  messagesDriver(app.url, TEST_KEY),
  chatDriver(app.url, TEST_KEY),
  responsesDriver(app.url, TEST_KEY),
  geminiDriver(app.url, TEST_KEY),
];
const last = (): (typeof emu.requests)[number] => emu.requests[emu.requests.length - 1];
const paths: Record<string, (stream: boolean) => string> = {
  'm-vx-claude': (s) =>
    `/v1/projects/${emu.project}/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:${s ? 'streamRawPredict' : 'rawPredict'}`,
  'm-vx-gemini': (s) =>
    `/v1/projects/${emu.project}/locations/global/publishers/google/models/gemini-2.5-flash:${s ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
};

for (const d of drivers) {
  t.test(`client ${d.family}`, async (t) => {
    for (const model of Object.keys(paths)) {
      t.test(model, async (t) => {
        t.beforeEach(() => emu.reset());
        t.test('text', async (t) => {
          emu.script({ kind: 'text', text: 'hello from vertex' });
          const out = await d.text(model, 'terse', 'hi');
          t.equal(out.text, 'hello from vertex');
          t.equal(out.finish, d.stopWords.stop);
          t.ok(out.usage.input > 0 && out.usage.output > 0, 'usage reached the client');
          t.equal(last().path, paths[model](false));
          t.match(String(last().headers.authorization), /^Bearer ya29\.emulator-/);
          if (model === 'm-vx-claude') {
            t.match(last().body, { anthropic_version: 'vertex-2023-10-16' });
            t.notOk('model' in (last().body as Json), 'no model in the body');
          }
        });
        t.test('stream', async (t) => {
          emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
          const out = await d.stream(model, 'count');
          t.equal(out.text, 'one two three');
          t.equal(last().path, paths[model](true));
        });
        t.test('tool round trip', async (t) => {
          emu.script({ kind: 'tool', name: weatherTool.name, args: toolArgs, argChunks: toolArgPieces });
          const call = await d.toolCall(model, 'weather in Paris?', weatherTool);
          t.equal(call.finish, d.stopWords.tool);
          t.same(call.call.args, JSON.parse(toolArgs));
          emu.script({ kind: 'text', text: 'Sunny.' });
          const next = await d.toolResultTurn(model, call, weatherTool, 'sunny, 21C');
          t.equal(next.text, 'Sunny.');
          t.match(last().raw, 'sunny, 21C', 'the tool result reached Vertex');
        });
      });
    }
  });
}

t.test('the access token is fetched once per credential and reused while valid', async (t) => {
  // Two providers with key files (vx and vx-global): one token each, whatever the number of calls.
  t.ok(emu.tokenRequests() <= 3, `token requests: ${emu.tokenRequests()}`);
});

t.test('a key the token endpoint refuses: a 502 naming the provider in every family', async (t) => {
  const pem = (JSON.parse(readFileSync(emu.wrongKeyFile, 'utf8')) as { private_key: string }).private_key;
  const keyLine = pem.split('\n')[1];
  for (const d of drivers) {
    const out = await d.error('m-vx-bad');
    t.equal(out.status, 502, d.family);
    // Gemini's own shape, with the 502 (gRPC's HTTP mapping reads it as UNAVAILABLE).
    if (d.family === 'gemini') t.match(out.body, { error: { code: 502, status: 'UNAVAILABLE' } });
    const text = JSON.stringify(out.body);
    t.match(text, /provider 'vx-bad' could not get a Google access token/, d.family);
    t.notMatch(text, keyLine, 'no key material');
  }
});

t.test('the ledger, the metrics, /v1/models; no token or key in the log', async (t) => {
  const res = await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
  for (const m of Object.keys(paths)) t.ok(ids.includes(m), m);
  let rows: Awaited<ReturnType<typeof usage>>['rows'] = [];
  for (let i = 0; i < 50 && !rows.some((r) => r.provider === 'vx'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    rows = (await usage({ url: app.url } as Gateway, 'group_by=provider')).rows;
  }
  const row = rows.find((r) => r.provider === 'vx');
  t.ok(row && Number(row.input_tokens) > 0 && row.cost_nano > 0, 'tokens and cost');
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /polygate_provider_enabled\{provider="vx",type="vertex"\} 1/);
  const logs = JSON.stringify(app.logs()) + metrics;
  t.notMatch(logs, /ya29\.emulator-/, 'no access token');
  t.notMatch(logs, /BEGIN PRIVATE KEY/, 'no key');
});
