// Issue #30, findings 2 and 6. A model name with a control character (LF, CR, NUL, DEL) on a glob
// route that passes the client's name through reached the `x-polygate-route` header; Node threw
// ERR_INVALID_CHAR inside the relay's callback and the process exited. A 1 MB name went into the
// usage ledger and a 1 MB response header. Now a name is at most 256 bytes and has no control
// character (a 400 in the family's own shape naming `model`, src/ir/model-name.ts), and every
// header value built from a name is percent-encoded and bounded (src/infra/http/header-value.ts).
import t, { type Test } from 'tap';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { startEmulators } from '../helpers/gateway-with-upstreams.ts';

const ADMIN = 'admin-token-0123456789';
const emulators = await startEmulators({ oai: 'chat', anth: 'anthropic', gem: 'gemini' });
const gw = await startGateway(
  testConfig({
    providers: emulators.providers,
    models: {
      'gpt-*': { routes: [{ provider: 'oai' }] },
      'claude-*': { routes: [{ provider: 'anth' }] },
      'gemini-*': { routes: [{ provider: 'gem' }] },
      // Translated: Messages in, Chat Completions upstream under the client's name.
      'xlat-*': { routes: [{ provider: 'oai' }] },
    },
    admin: { token: ADMIN },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await emulators.close();
});

const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gw.url, apiVersion: 'v1beta' } });

async function alive(t: Test): Promise<void> {
  t.equal(gw.process.exitCode, null, 'the gateway is still running');
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200, '/healthz answers');
}

const controls = { LF: '\n', CR: '\r', NUL: '\u0000', DEL: '\u007f' };

for (const [name, c] of Object.entries(controls)) {
  t.test(`Chat Completions relay: ${name} in the model name is a 400 naming model`, async (t) => {
    const err = await openai.chat.completions
      .create({ model: `gpt-a${c}b`, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    t.ok(err instanceof OpenAI.APIError);
    const e = err as InstanceType<typeof OpenAI.APIError>;
    t.equal(e.status, 400);
    t.equal(e.param, 'model');
    t.match(e.message, /control character/);
    await alive(t);
  });

  t.test(`Messages relay and translation: ${name} in the model name is a 400 naming model`, async (t) => {
    for (const model of [`claude-a${c}b`, `xlat-a${c}b`]) {
      const err = await anthropic.messages
        .create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      t.ok(err instanceof Anthropic.APIError, model);
      const e = err as InstanceType<typeof Anthropic.APIError>;
      t.equal(e.status, 400);
      t.match(e.error, { type: 'error', error: { type: 'invalid_request_error', message: /^model: / } });
    }
    await alive(t);
  });
}

t.test('Gemini: a control character in the path model is a 400 in Gemini shape naming model', async (t) => {
  const r = await fetch(`${gw.url}/v1beta/models/gemini-a%0Ab:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  t.equal(r.status, 400);
  const body = (await r.json()) as { error: { status: string; message: string } };
  t.equal(body.error.status, 'INVALID_ARGUMENT');
  t.match(body.error.message, /^model: control character U\+000A/);
  await alive(t);
});

t.test('a name over 256 bytes is a 400 naming model, not a ledger row or a huge header', async (t) => {
  const long = `gpt-${'x'.repeat(300_000)}`;
  const err = await openai.chat.completions
    .create({ model: long, messages: [{ role: 'user', content: 'hi' }] })
    .catch((e: unknown) => e);
  const e = err as InstanceType<typeof OpenAI.APIError>;
  t.equal(e.status, 400);
  t.equal(e.param, 'model');
  t.match(e.message, /at most 256 bytes/);
  t.ok(e.message.length < 200, 'the message does not quote the name');

  const tooLong = `gemini-${'y'.repeat(260)}`;
  const g = await genai.models.generateContent({ model: tooLong, contents: 'hi' }).catch((x: unknown) => x);
  t.match(String(g), /400|at most 256 bytes/);
  t.equal(emulators.up.gem.requests.length, 0, 'nothing reached the Gemini upstream');

  const usage = await fetch(`${gw.url}/admin/usage`, { headers: { authorization: `Bearer ${ADMIN}` } });
  t.equal(usage.status, 200);
  t.notMatch(await usage.text(), 'xxxxxxxxxx', 'no ledger row names the long model');
  await alive(t);
});

t.test('a 256-byte name and a non-ASCII name still pass; the route header is percent-encoded', async (t) => {
  const atBound = `gpt-${'z'.repeat(252)}`;
  const ok = await openai.chat.completions
    .create({ model: atBound, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  t.equal(ok.response.status, 200);
  t.equal(ok.response.headers.get('x-polygate-route'), `oai/${atBound}`);

  const unicode = 'gpt-модель';
  const u = await openai.chat.completions
    .create({ model: unicode, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  t.equal(u.response.status, 200);
  t.equal(u.response.headers.get('x-polygate-route'), `oai/gpt-${encodeURIComponent('модель')}`);
  t.equal((emulators.up.oai.requests.at(-1)?.body as { model: string }).model, unicode, 'upstream got the name');

  // Translated: Messages client, Chat Completions upstream.
  const m = await anthropic.messages
    .create({ model: 'xlat-ü', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  t.equal(m.response.headers.get('x-polygate-route'), 'oai/xlat-%C3%BC');
  await alive(t);
});

t.test('GET /v1/models/{model}: a name with a control character or over 256 bytes is a 400 naming model', async (t) => {
  for (const id of ['gpt-a%0Ab', `gpt-${'x'.repeat(300)}`]) {
    const r = await fetch(`${gw.url}/v1/models/${id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    t.equal(r.status, 400, id.slice(0, 20));
    t.match(await r.json(), { error: { param: 'model' } });
  }
  const ok = await fetch(`${gw.url}/v1/models/echo`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(ok.status, 200);
  await alive(t);
});
