// A Messages client of Claude on Bedrock (InvokeModel) or Vertex (rawPredict) keeps its body
// (issue #26, docs/providers.md; DESIGN.md "Open world"): the body is relayed in the cloud's
// envelope (the version in the body, the model in the path, the betas as `anthropic_beta`,
// SigV4-signed or with a bearer token), so a top-level field and a content block type polygate
// does not know reach the emulator untouched; Bedrock's event stream comes back to the client as
// the Anthropic SSE its chunks carry, byte for byte; usage reaches the ledger.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { cloudGateway, metricsOf, providerRows } from './cloud-gateway.ts';
import { bedrockSigned, vertexAt } from './cloud-providers.ts';
import { postMessages } from './post-messages.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
const [bedrock, vertex] = await Promise.all([startBedrockUpstream(), startVertexUpstream()]);
t.teardown(() => Promise.all([bedrock.close(), vertex.close()]));
t.teardown(redirectGoogleTokens(`${vertex.url}/token`));

const brModel = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const vxModel = 'claude-sonnet-4-5@20250929';
const { app } = await cloudGateway(t, {
  providers: { br: bedrockSigned(bedrock), vx: { ...vertexAt(vertex), credentials_file: vertex.keyFile } },
  models: modelRoutes({ 'claude-br': `br/${brModel}`, 'claude-vx': `vx/${vxModel}` }),
  prices: { 'claude-br': { input: 3, output: 15 } },
});
const client = new Anthropic({ baseURL: app.url, apiKey: TEST_KEY, maxRetries: 0 });
const betas = { 'anthropic-beta': 'future-beta-2099-01-01, context-1m-2025-08-07' };
/** What polygate does not know: a top-level field, and a content block type. */
const unknownField = { tier: 'gold', nested: [1, { deep: true }] };
const unknownBlock = { type: 'hologram_2099', frames: ['a', 'b'], cache_control: { type: 'ephemeral' } };
const request = (model: string): Json => ({
  model,
  max_tokens: 64,
  future_top_level_option: unknownField,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, unknownBlock] }],
});

function keptBody(t: Tap, body: Json, version: string): void {
  t.equal(body.anthropic_version, version);
  t.same(body.future_top_level_option, unknownField, 'the unknown top-level field arrived untouched');
  t.same((body.messages as Json[])[0].content, [{ type: 'text', text: 'hi' }, unknownBlock], 'the unknown block too');
  t.same(body.anthropic_beta, ['future-beta-2099-01-01', 'context-1m-2025-08-07'], 'the betas in the body');
  t.notOk('model' in body, 'the model is in the path');
}
type Tap = { equal: typeof t.equal; same: typeof t.same; notOk: typeof t.notOk; match: typeof t.match };

t.test('Bedrock InvokeModel', async (t) => {
  t.beforeEach(() => bedrock.reset());
  t.test('not streamed: the body kept, signed, the answer as Bedrock sent it', async (t) => {
    bedrock.script({ kind: 'text', text: 'kept' });
    const msg = await client.messages.create(request('claude-br') as never, { headers: betas });
    t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'kept');
    t.equal(msg.model, brModel, "the answer is the upstream's, not re-encoded");
    const got = bedrock.requests[0];
    t.equal(got.path, `/model/${encodeURIComponent(brModel)}/invoke`);
    t.match(String(got.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKEMULATOR1\//);
    keptBody(t, got.body as Json, 'bedrock-2023-05-31');
    t.notOk('stream' in (got.body as Json));
  });
  t.test('streamed: the chunks come back as Anthropic SSE, byte for byte', async (t) => {
    bedrock.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
    const res = await postMessages(app.url, { ...request('claude-br'), stream: true }, betas);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/event-stream/);
    const text = await res.text();
    t.ok(bedrock.chunks.length > 3, 'several chunks');
    const expected = bedrock.chunks.map((d) => `event: ${(JSON.parse(d) as Json).type}\ndata: ${d}\n\n`).join('');
    t.equal(text, expected, 'each chunk as an event and a data line of its JSON');
    t.match(text, /amazon-bedrock-invocationMetrics/, "a field of Bedrock's own reached the client");
    const got = bedrock.requests[0];
    t.equal(got.path, `/model/${encodeURIComponent(brModel)}/invoke-with-response-stream`);
    keptBody(t, got.body as Json, 'bedrock-2023-05-31');
    t.notOk('stream' in (got.body as Json), 'the stream is in the operation');
  });
  t.test('cut mid-stream: the client gets a Messages error event, not a bare cut', async (t) => {
    bedrock.script({ kind: 'cut', text: 'partial answer' });
    const res = await postMessages(app.url, { ...request('claude-br'), stream: true });
    t.equal(res.status, 200);
    const text = await res.text();
    t.match(text, /^event: message_start\n/, 'the stream had started');
    t.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"[a-z_]+"/, 'it ends with an error event');
  });
  t.test('streamed through the SDK', async (t) => {
    bedrock.script({ kind: 'text', text: 'one two', chunks: ['one ', 'two'] });
    const msg = await client.messages.stream(request('claude-br') as never, { headers: betas }).finalMessage();
    t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'one two');
    t.ok(msg.usage.output_tokens > 0, 'usage in the stream');
  });
});

t.test('Vertex rawPredict', async (t) => {
  t.beforeEach(() => vertex.reset());
  const path = (method: string): string =>
    `/v1/projects/${vertex.project}/locations/us-east5/publishers/anthropic/models/${encodeURIComponent(vxModel)}:${method}`;
  t.test('not streamed', async (t) => {
    vertex.script({ kind: 'text', text: 'kept on vertex' });
    const msg = await client.messages.create(request('claude-vx') as never, { headers: betas });
    t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'kept on vertex');
    const got = vertex.requests[0];
    t.equal(got.path, path('rawPredict'));
    t.match(String(got.headers.authorization), /^Bearer ya29\./);
    keptBody(t, got.body as Json, 'vertex-2023-10-16');
  });
  t.test('streamed', async (t) => {
    vertex.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
    const msg = await client.messages.stream(request('claude-vx') as never, { headers: betas }).finalMessage();
    t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'one two three');
    const got = vertex.requests[0];
    t.equal(got.path, path('streamRawPredict'));
    keptBody(t, got.body as Json, 'vertex-2023-10-16');
    t.equal((got.body as Json).stream, true, 'stream stays in the body, as the Vertex SDK sends it');
  });
});

t.test('usage of the relayed requests in /admin/usage', async (t) => {
  const rows = await providerRows(app, ['br', 'vx']);
  const br = rows.find((r) => r.provider === 'br');
  const vx = rows.find((r) => r.provider === 'vx');
  t.equal(br?.requests, 4, 'four Bedrock requests');
  t.equal(vx?.requests, 2, 'two Vertex requests');
  for (const row of [br, vx]) {
    t.ok(row && row.input_tokens > 0 && row.output_tokens > 0, `${row?.provider}: tokens`);
    t.equal(row?.estimated, 0, `${row?.provider}: the upstream's own counts, not an estimate`);
  }
  t.ok(br && br.cost_nano > 0, 'priced');
  const metrics = await metricsOf(app);
  for (const p of ['br', 'vx'])
    t.match(
      metrics,
      new RegExp(
        `polygate_requests_total\\{[^}]*upstream_format="anthropic-messages",provider="${p}",mode="passthrough"`,
      ),
      `${p}: counted as a pass-through`,
    );
  t.notMatch(metrics, /mode="translate"/, 'nothing was translated');
});
