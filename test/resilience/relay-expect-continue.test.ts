// A client's `Expect: 100-continue` was relayed to the upstream, and http-proxy emits no
// `proxyReq` for a request carrying `expect` (node_modules/http-proxy/lib/http-proxy/passes/web-incoming.js),
// so the relay's connect and first-byte timers (src/families/chat/relay-timers.ts) never armed: an
// upstream that accepted the connection and never answered held the request forever. The relay
// has read the whole body already, so `expect` is not relayed (pass-through.ts, `clientOnlyHeaders`):
// the timers arm as without the header, and the body still reaches the upstream whole.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

type Seen = { headers: IncomingHttpHeaders; body: string };
const seen: Seen[] = [];
const held = new Set<import('node:http').ServerResponse>();
// An OpenAI-shaped upstream: model 'up-never' is read whole and never answered; others get an answer.
const up = createServer((req, res) => {
  let body = '';
  req.on('data', (b: Buffer) => (body += b.toString()));
  req.on('end', () => {
    seen.push({ headers: req.headers, body });
    if ((JSON.parse(body) as { model?: string }).model === 'up-never') {
      held.add(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'up-ok',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
});
// The upstream never answers 100 Continue itself either: the client-side expectation is the gateway's to meet.
up.on('checkContinue', (req, res) => up.emit('request', req, res));
await new Promise<void>((ok) => up.listen(0, '127.0.0.1', ok));
const upUrl = `http://127.0.0.1:${(up.address() as AddressInfo).port}/v1`;
const noBreaker = { consecutive_failures: 0, failure_ratio: 0 };
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      loop: { type: 'openai', base_url: upUrl, api_key: 'sk-up-expect', api: 'chat_completions' },
      // An operator's configured headers with an `Expect` among them: the relay's request hook sends
      // the body (src/infra/upstream/relay-proxy.ts), and http-proxy announces no request carrying one.
      configured: {
        type: 'openai',
        base_url: upUrl,
        api_key: 'sk-up-expect',
        api: 'chat_completions',
        headers: { Expect: '100-continue' },
      },
    },
    models: {
      never: {
        breaker: noBreaker,
        routes: [{ provider: 'loop', model: 'up-never', timeouts: { first_byte_ms: 300 } }],
      },
      fine: { routes: [{ provider: 'loop', model: 'up-ok' }] },
      configured: { routes: [{ provider: 'configured', model: 'up-ok', timeouts: { first_byte_ms: 2_000 } }] },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  for (const res of held) res.destroy();
  up.closeAllConnections();
  await new Promise((ok) => up.close(ok));
});

/** A raw node:http request with `Expect: 100-continue`: the body goes once the gateway says continue. */
function post(model: string, content: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content }] });
  return new Promise((ok, fail) => {
    const req = request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        authorization: `Bearer ${TEST_KEY}`,
        expect: '100-continue',
      },
    });
    req.on('continue', () => req.end(body));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
  });
}

t.test('an upstream that never answers times out with Expect: 100-continue as without it', async (t) => {
  // Without the fix this request never settles; tap's own per-test timeout is the failure then.
  t.setTimeout(15_000);
  const r = await post('never', 'hello');
  t.equal(r.status, 504, 'the first-byte timeout answered');
  t.match(JSON.parse(r.body), { error: { message: /first-byte timeout/ } }, 'in the family shape');
  t.equal(seen.at(-1)?.headers.expect, undefined, 'expect is not relayed');
});

t.test('the body is relayed whole and the answer comes back', async (t) => {
  const content = 'x'.repeat(200_000);
  const r = await post('fine', content);
  t.equal(r.status, 200);
  t.equal(JSON.parse(r.body).choices[0].message.content, 'ok');
  const last = seen.at(-1);
  t.equal(last?.headers.expect, undefined, 'expect is not relayed');
  t.equal((JSON.parse(last?.body ?? '{}') as { messages: { content: string }[] }).messages[0]?.content, content);
});

t.test(
  "a provider's configured Expect header is not sent either: the body goes and the answer comes back",
  async (t) => {
    // Without the fix the body is never sent (no request hook) and no timer is armed: the request never settles.
    t.setTimeout(15_000);
    const r = await post('configured', 'configured');
    t.equal(r.status, 200);
    t.equal(JSON.parse(r.body).choices[0].message.content, 'ok');
    const last = seen.at(-1);
    t.equal(last?.headers.expect, undefined, 'expect is not relayed');
    t.equal((JSON.parse(last?.body ?? '{}') as { messages: { content: string }[] }).messages[0]?.content, 'configured');
  },
);
