// Claude on Amazon Bedrock as an upstream (issue #26, docs/providers.md "Bedrock"): every client
// family, through its official SDK, reaches the Bedrock emulator, which verifies each request's
// SigV4 signature; streamed and not, with a tool round trip and thinking (signature kept for the
// next turn); model ids with `:` and inference-profile ARNs in the path; credentials static, with
// a session token, or from the default chain (environment); a wrong secret is a 502 naming the
// provider; usage reaches the ledger; the secret is in no log line, metric or answer.
import t from 'tap';
import { bedrockCredentials, startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, usage } from '../usage/usage-helpers.ts';
import { chatDriver } from './matrix/drivers/chat-driver.ts';
import type { Driver } from './matrix/drivers/driver.ts';
import { geminiDriver } from './matrix/drivers/gemini-driver.ts';
import { messagesDriver } from './matrix/drivers/messages-driver.ts';
import { responsesDriver } from './matrix/drivers/responses-driver.ts';
import { thinkingText, toolArgPieces, toolArgs, weatherTool } from './matrix/fixtures.ts';

type Json = Record<string, unknown>;
type Tap = { equal: typeof t.equal; notOk: typeof t.notOk; match: typeof t.match };
const emu = await startBedrockUpstream();
t.teardown(() => emu.close());
// The default chain reads the environment first.
process.env.AWS_ACCESS_KEY_ID = bedrockCredentials.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = bedrockCredentials.secretAccessKey;
const wrongSecret = 'wrong/Bedrock+Secret/000000000000000000000';
const sessionToken = 'FwoGZXIvYXdzEXAMPLEsessiontoken0123456789';
const claude = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const base = { type: 'bedrock', region: 'us-east-1', base_url: emu.url };
const keys = { access_key_id: bedrockCredentials.accessKeyId, secret_access_key: bedrockCredentials.secretAccessKey };
const app = await startInProcessApp(
  t,
  testConfig({
    providers: {
      br: { ...base, ...keys },
      'br-session': { ...base, ...keys, session_token: sessionToken },
      'br-chain': { ...base },
      'br-bad': { ...base, access_key_id: bedrockCredentials.accessKeyId, secret_access_key: wrongSecret },
    },
    models: {
      'm-br': { routes: [{ provider: 'br', model: claude }] },
      // A single route retries only when it opts in (docs/resilience.md).
      'm-br-retry': {
        routes: [{ provider: 'br', model: claude, retries: { max_retries: 1, base_delay_ms: 1, max_delay_ms: 1 } }],
      },
      'm-br-arn': { routes: [{ provider: 'br-session', model: arn }] },
      'm-br-chain': { routes: [{ provider: 'br-chain', model: claude }] },
      'm-br-bad': { routes: [{ provider: 'br-bad', model: claude }] },
    },
    admin: { token: ADMIN_TOKEN },
    usage: { flush_interval_ms: 50, prices: { models: { 'm-br': { input: 3, output: 15 } } } },
  }),
);
const drivers: Driver[] = [
  messagesDriver(app.url, TEST_KEY),
  chatDriver(app.url, TEST_KEY),
  responsesDriver(app.url, TEST_KEY),
  geminiDriver(app.url, TEST_KEY),
];
const last = (): (typeof emu.requests)[number] => emu.requests[emu.requests.length - 1];

function arrivedAsBedrock(t: Tap, model: string, stream: boolean): void {
  const got = last();
  const id = model === 'm-br-arn' ? arn : claude;
  t.equal(got.path, `/model/${encodeURIComponent(id)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`);
  const body = got.body as Json;
  t.equal(body.anthropic_version, 'bedrock-2023-05-31');
  t.notOk('model' in body || 'stream' in body, 'no model or stream in the body');
  t.match(
    String(got.headers.authorization),
    /^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKEMULATOR1\/\d{8}\/us-east-1\/bedrock\//,
  );
  if (model === 'm-br-arn') t.equal(got.headers['x-amz-security-token'], sessionToken);
  else t.notOk(got.headers['x-amz-security-token']);
}

for (const d of drivers) {
  t.test(`client ${d.family}`, async (t) => {
    for (const model of ['m-br', 'm-br-arn', 'm-br-chain']) {
      t.test(model, async (t) => {
        t.beforeEach(() => emu.reset());
        t.test('text', async (t) => {
          emu.script({ kind: 'text', text: 'hello from bedrock' });
          const out = await d.text(model, 'terse', 'hi');
          t.equal(out.text, 'hello from bedrock');
          t.equal(out.finish, d.stopWords.stop);
          t.ok(out.usage.input > 0 && out.usage.output > 0, 'usage reached the client');
          arrivedAsBedrock(t, model, false);
        });
        t.test('stream', async (t) => {
          emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
          const out = await d.stream(model, 'count');
          t.equal(out.text, 'one two three');
          t.ok(out.deltas.length > 1, 'arrived in pieces');
          arrivedAsBedrock(t, model, true);
        });
      });
    }
    t.test('tool round trip', async (t) => {
      emu.reset();
      emu.script({ kind: 'tool', name: weatherTool.name, args: toolArgs, argChunks: toolArgPieces });
      const call = await d.toolCall('m-br', 'weather in Paris?', weatherTool);
      t.equal(call.finish, d.stopWords.tool);
      t.same(call.call.args, JSON.parse(toolArgs));
      emu.script({ kind: 'text', text: 'Sunny.' });
      const next = await d.toolResultTurn('m-br', call, weatherTool, 'sunny, 21C');
      t.equal(next.text, 'Sunny.');
      t.match(last().raw, 'sunny, 21C', 'the tool result reached Bedrock');
    });
  });
}

t.test('thinking: a Messages client gets it with its signature, which goes back next turn', async (t) => {
  emu.reset();
  const messages = drivers[0];
  emu.script({ kind: 'thinking', thinking: thinkingText, signature: 'sig-bedrock-123==', text: 'Forty-two.' });
  const out = await messages.reasoning('m-br', 'think');
  t.equal(out.thinking, thinkingText);
  t.equal(out.token, 'sig-bedrock-123==');
  t.match(last().body, { thinking: { type: 'enabled' } });
  emu.script({ kind: 'text', text: 'again' });
  await messages.reasoningContinue('m-br', out, 'more');
  t.match(last().raw, 'sig-bedrock-123==', 'the signature reached Bedrock again');
});

t.test('a wrong secret: a 502 naming the provider in every family, no secret in the answer', async (t) => {
  for (const d of drivers) {
    const out = await d.error('m-br-bad');
    t.equal(out.status, 502, d.family);
    // Gemini's own shape, with the 502 (gRPC's HTTP mapping reads it as UNAVAILABLE).
    if (d.family === 'gemini') t.match(out.body, { error: { code: 502, status: 'UNAVAILABLE' } });
    const text = JSON.stringify(out.body);
    t.match(text, /provider 'br-bad' rejected polygate's credentials/, d.family);
    t.notMatch(text, wrongSecret);
    t.notMatch(text, 'signature we calculated', "AWS's own text is not relayed");
  }
});

t.test("Bedrock's ThrottlingException is retried where the route allows, else a rate limit", async (t) => {
  emu.reset();
  emu.script({ kind: 'error', status: 429 }, { kind: 'text', text: 'after a retry' });
  const out = await drivers[1].text('m-br-retry', 'terse', 'hi');
  t.equal(out.text, 'after a retry');
  t.equal(emu.requests.length, 2, 'the ThrottlingException was retried');
  emu.script({ kind: 'error', status: 429 });
  const err = await drivers[0].error('m-br');
  t.equal(err.status, 429);
  t.equal(drivers[0].errorWord(err.body), 'rate_limit_error');
});

t.test('/v1/models, the ledger, the metrics; the secrets nowhere', async (t) => {
  const res = await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
  for (const m of ['m-br', 'm-br-arn', 'm-br-chain']) t.ok(ids.includes(m), m);
  let rows: Awaited<ReturnType<typeof usage>>['rows'] = [];
  for (let i = 0; i < 50 && !rows.some((r) => r.provider === 'br'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    rows = (await usage({ url: app.url } as Gateway, 'group_by=provider')).rows;
  }
  const row = rows.find((r) => r.provider === 'br');
  t.ok(row && Number(row.input_tokens) > 0 && Number(row.output_tokens) > 0, 'tokens');
  t.ok(row && row.cost_nano > 0, 'cost');
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /polygate_provider_enabled\{provider="br",type="bedrock"\} 1/);
  t.match(metrics, /polygate_circuit_breaker_state\{provider="br"\}/);
  const logs = JSON.stringify(app.logs());
  for (const secret of [bedrockCredentials.secretAccessKey, wrongSecret, sessionToken]) {
    t.notMatch(metrics, secret, 'not in the metrics');
    t.notMatch(logs, secret, 'not in the log');
  }
});
