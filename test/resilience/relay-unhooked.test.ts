// A relay's per-request hooks (src/infra/upstream/relay-proxy.ts) leave the client's request once
// the relay settles, whichever way it ends: an answer, a stream, an upstream error relayed, one
// retried on the next route, a refused connection. They were kept in a WeakMap keyed by that
// request, and their closures reach the request itself: V8's young-generation GC treats a WeakMap's
// values as live, so every relayed request's whole object graph survived each scavenge and was
// promoted to the old generation (16 KB a request; bench/RESULTS.md, "Session 9").
import Anthropic from '@anthropic-ai/sdk';
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { relayHooked } from '../../src/infra/upstream/relay-proxy.ts';
import { inProcessWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { messagesComplete } from '../helpers/messages-complete.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';

const {
  app: gw,
  up: { anthropic: emulator },
} = await inProcessWithEmulators(t, {
  upstreams: { anthropic: 'anthropic' },
  // Nothing listens on port 9 of the loopback: the connection is refused.
  providers: {
    refused: { type: 'anthropic', base_url: 'http://127.0.0.1:9', api_key: 'sk-ant-upstream-unhooked-0002' },
  },
  models: modelRoutes({
    'claude-unhooked': 'anthropic/claude-unhooked-upstream',
    'claude-fallback': ['anthropic/claude-unhooked-upstream', 'anthropic/claude-unhooked-second'],
    'claude-refused': 'refused/claude-refused-upstream',
  }),
});

/** Every client request the relay proxy was handed, in order. */
const relayed: IncomingMessage[] = [];
const proxy = gw.services.proxy;
const web = proxy.web.bind(proxy);
proxy.web = (req, ...rest) => {
  relayed.push(req);
  web(req, ...rest);
};

const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
const ask = (model: string) =>
  client.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hooks' }] });
/** The HTTP status a failed call answered with. */
const statusOf = (p: Promise<unknown>): Promise<number | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (e as { status?: number }).status,
  );

t.test('the hooks leave the request after a JSON answer and after a stream', async (t) => {
  relayed.length = 0;
  for (const stream of [false, true])
    await messagesComplete(t, client, { model: 'claude-unhooked', content: 'hooks', stream }, 'the relay');
  t.equal(relayed.length, 2, 'both went through the relay');
  for (const req of relayed) t.notOk(relayHooked(req), 'no hooks left on the request');
});

t.test('the hooks leave the request after an upstream error, relayed or retried on the next route', async (t) => {
  relayed.length = 0;
  emulator.script({ kind: 'error', status: 400, message: 'bad' });
  t.equal(await statusOf(ask('claude-unhooked')), 400, "the upstream's 400 is relayed");
  emulator.script({ kind: 'error', status: 529 });
  const msg = await ask('claude-fallback');
  t.equal(msg.type, 'message', 'the second route answers after the first one overloaded');
  t.equal(relayed.length, 3, 'three relays: the error, then two routes of one request');
  for (const req of relayed) t.notOk(relayHooked(req), 'no hooks left on the request');
});

t.test('the hooks leave the request when the upstream refuses the connection', async (t) => {
  relayed.length = 0;
  t.equal(await statusOf(ask('claude-refused')), 502, 'a refused connection is a 502');
  t.equal(relayed.length, 1, 'the relay was tried');
  t.notOk(relayHooked(relayed[0]), 'no hooks left on the request');
});
