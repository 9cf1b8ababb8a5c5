// A translated JSON answer (src/families/chat/chat-handler.ts) on the wire: the content type Koa
// gives a JSON body (set by the handler, before the body, so the headers keep their order), a
// length that is the body's, the body the official SDK reads, and a client that sends no content
// type, or another one, refused with a 415 in the family's shape.
import { request } from 'node:http';
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

const { app, up } = await inProcessWithEmulators(t, {
  upstreams: { oai: 'chat' },
  models: modelRoutes({ 'claude-via-openai': 'oai/gpt-upstream-1' }),
});

type Raw = { status: number; rawHeaders: string[]; body: string };
function post(headers: Record<string, string>, body: string): Promise<Raw> {
  const url = new URL('/v1/messages', app.url);
  return new Promise((ok, fail) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}
const names = (raw: string[]): string[] => raw.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase());
const value = (raw: string[], name: string): string | undefined => {
  const i = names(raw).indexOf(name);
  return i < 0 ? undefined : raw[2 * i + 1];
};
const body = JSON.stringify({
  model: 'claude-via-openai',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'héllo' }],
});
const headers = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };

t.test('the answer: JSON type first, its own length, then the route headers', async (t) => {
  up.oai.script({ kind: 'text', text: 'ünïcode answer' });
  const r = await post({ ...headers, 'content-type': 'application/json' }, body);
  t.equal(r.status, 200);
  t.equal(value(r.rawHeaders, 'content-type'), 'application/json; charset=utf-8');
  t.equal(Number(value(r.rawHeaders, 'content-length')), Buffer.byteLength(r.body), 'the length is in bytes');
  const order = names(r.rawHeaders);
  t.ok(order.indexOf('content-type') < order.indexOf('x-polygate-route'), 'content type before the route headers');
  const msg = JSON.parse(r.body) as { type: string; content: { text: string }[] };
  t.equal(msg.type, 'message');
  t.equal(msg.content[0].text, 'ünïcode answer');
});

t.test('the SDK reads the same answer', async (t) => {
  up.oai.script({ kind: 'text', text: 'from the sdk' });
  const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: app.url, maxRetries: 0 });
  const msg = await anthropic.messages.create({
    model: 'claude-via-openai',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'from the sdk');
});

t.test('a JSON type with parameters or in capitals is JSON; another type, or none, is a 415', async (t) => {
  for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
    up.oai.script({ kind: 'text', text: 'ok' });
    const r = await post({ ...headers, 'content-type': type }, body);
    t.equal(r.status, 200, type);
  }
  for (const type of ['text/plain', undefined]) {
    const r = await post({ ...headers, ...(type ? { 'content-type': type } : {}) }, body);
    t.equal(r.status, 415, String(type));
    t.match(JSON.parse(r.body), { type: 'error', error: { type: 'invalid_request_error' } }, 'in the Messages shape');
  }
});
