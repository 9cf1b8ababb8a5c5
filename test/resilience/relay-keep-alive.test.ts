// A Messages relay failed now and then with "provider 'anthropic' could not be reached
// (ECONNRESET)": the relay's keep-alive agent (src/services/providers/http-chat-provider.ts,
// `relayAgent`) reused a socket the upstream was closing at that moment. Node's http server
// announces its keep-alive timeout (`Keep-Alive: timeout=5`), but node:http's Agent only honours
// that hint when the agent has a socket timeout of its own; the relay's had none, so its idle
// sockets lived until the server closed them, and a relay written at the instant of that close
// was reset.
//
// The upstream here is the Anthropic emulator behind a Node http server that announces
// `Keep-Alive: timeout=2` and, when a request arrives on a connection idle for 2 s or more, resets
// it: its keep-alive close landing exactly as the request arrives, the race a loaded machine hits
// by chance. The test pauses 3 s between relays (a pause, not a timed assertion). A client that
// honours the announcement keeps an idle socket at most the announced time less a second, so it
// opens a new connection and every relay succeeds; one that ignores it sends the next relay into
// the reset.
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { listenLoopback } from '../emulators/emulator-server.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { messagesComplete } from '../helpers/messages-complete.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const emulator = await startAnthropicUpstream();

const ANNOUNCED_S = 2;
const PAUSE_MS = 3000;
/** When each connection last finished a response. */
const idleSince = new WeakMap<Socket, number>();
let resets = 0;
let connections = 0;
const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
const edge = createServer((req, res) => {
  const since = idleSince.get(req.socket);
  if (since !== undefined && Date.now() - since >= ANNOUNCED_S * 1000) {
    resets++;
    req.socket.resetAndDestroy();
    return;
  }
  void readBody(req).then(async (body) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length', 'keep-alive'].includes(k)),
    ) as Record<string, string>;
    const up = await fetch(emulator.url + (req.url ?? '/'), { method: req.method, headers, body });
    const bytes = Buffer.from(await up.arrayBuffer());
    // Set by hand: Node would announce its own (longer) keepAliveTimeout below.
    res.writeHead(up.status, {
      'content-type': up.headers.get('content-type') ?? 'application/json',
      'content-length': String(bytes.length),
      connection: 'keep-alive',
      'keep-alive': `timeout=${ANNOUNCED_S}`,
    });
    res.end(bytes, () => idleSince.set(req.socket, Date.now()));
  });
});
edge.on('connection', () => connections++);
// Its own timer never closes a connection during the test: the reset above stands for it.
edge.keepAliveTimeout = 60_000;
const { url: edgeUrl, close: closeEdge } = await listenLoopback(edge);

const gw = await startInProcessGateway(
  testConfig({
    providers: { anthropic: { type: 'anthropic', base_url: edgeUrl, api_key: 'sk-ant-upstream-ka-0001' } },
    models: modelRoutes({ 'claude-ka': 'anthropic/claude-ka-upstream' }),
  }),
);
t.teardown(async () => {
  await gw.stop();
  await closeEdge();
  await emulator.close();
});

t.test('relays after one another never reuse a socket the upstream announced it would close', async (t) => {
  // The SDK's own retries would hide a reset relay.
  const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  for (let i = 0; i < 4; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    await messagesComplete(t, client, { model: 'claude-ka', content: `relay ${i}`, stream: i % 2 === 1 }, `relay ${i}`);
  }
  t.equal(resets, 0, 'no relay was sent on a connection the upstream was closing');
  t.equal(connections, 4, 'each relay after a pause longer than the announced timeout opened a new connection');
  t.equal(emulator.requests.length, 4, 'each relay reached the upstream once');
});
