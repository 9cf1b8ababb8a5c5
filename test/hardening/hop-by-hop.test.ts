// Finding 12 of the hardening issue (relay part): pass-through forwarded Proxy-Authorization,
// headers named in Connection, and Forwarded / X-Forwarded-For. Such headers now stay on their
// side of the relay in both directions; other headers (unknown ones included) still pass.
import { request, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { startHostileUpstream } from './hostile-upstream.ts';

const up = await startHostileUpstream();
const gw = await startInProcessGateway(
  testConfig({
    providers: {
      hostile: { type: 'openai', base_url: up.url, api_key: 'sk-upstream-hop-0001', api: 'chat_completions' },
    },
    models: { hop: { routes: [{ provider: 'hostile', model: 'hop' }] } },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await up.close();
});

/** A raw request, so that headers fetch would refuse to send (Connection, Via, Proxy-*) go out. */
function post(
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const body = JSON.stringify({ model: 'hop', messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((ok, fail) => {
    const req = request(
      `${gw.url}/v1/chat/completions`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}`, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (b: Buffer) => (text += b.toString()));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

t.test('hop-by-hop and proxy headers are not relayed, either way', async (t) => {
  const r = await post({
    connection: 'keep-alive, x-client-hop',
    'x-client-hop': 'client-only',
    'proxy-authorization': 'Basic c2VjcmV0',
    forwarded: 'for=10.1.2.3',
    'x-forwarded-for': '10.1.2.3',
    'x-forwarded-host': 'internal.example',
    'x-real-ip': '10.1.2.3',
    via: '1.1 client-proxy',
    'x-custom-kept': 'yes',
  });
  t.equal(r.status, 200);
  t.equal(JSON.parse(r.body).object, 'chat.completion');
  const seen = up.seen.at(-1) ?? {};
  for (const h of [
    'x-client-hop',
    'proxy-authorization',
    'forwarded',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-real-ip',
    'via',
  ])
    t.equal(seen[h], undefined, `${h} not sent upstream`);
  t.equal(seen['x-custom-kept'], 'yes', 'an ordinary unknown header still reaches the upstream');
  for (const h of ['x-hop-secret', 'proxy-authenticate', 'via', 'x-forwarded-for'])
    t.equal(r.headers[h], undefined, `${h} not relayed to the client`);
  t.equal(r.headers['x-kept'], 'yes', 'an ordinary upstream header still reaches the client');
});
