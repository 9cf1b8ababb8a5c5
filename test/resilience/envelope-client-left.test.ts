// A client that leaves a stream relayed in a cloud's envelope (Claude on Vertex, rawPredict) is the
// client's doing, not the upstream's: the request's outcome is `client_closed`, and the provider's
// circuit breaker does not count it as a failure. It was recorded as `upstream_cut` (the aborted
// upstream read threw, and the catch took every throw for a cut stream), so with a breaker of one
// failure a single Claude Code interrupt (Esc) shut the route for everyone.
import Anthropic from '@anthropic-ai/sdk';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { startInProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';

const emu = await startVertexUpstream();
t.teardown(() => emu.close());
t.teardown(redirectGoogleTokens(`${emu.url}/token`));

// In front of the emulator: a streamed answer's first bytes go on, then nothing more until the
// caller leaves (an upstream still thinking); a JSON answer goes on whole.
const stalled = createServer((req, res) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const up = await fetch(new URL(req.url ?? '/', emu.url), {
      method: req.method,
      headers: { authorization: String(req.headers.authorization), 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
    if (!req.url?.includes(':streamRawPredict')) return void res.end(await up.text());
    const reader = up.body!.getReader();
    const first = await reader.read();
    res.write(first.value);
    await reader.cancel();
  })().catch(() => res.destroy());
});
await new Promise<void>((ok) => stalled.listen(0, '127.0.0.1', ok));
t.teardown(() => {
  stalled.closeAllConnections();
  stalled.close();
});
const proxyUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;

const app = await startInProcessApp(
  t,
  testConfig({
    providers: {
      vx: {
        type: 'vertex',
        project: emu.project,
        base_url: proxyUrl,
        region: 'us-east5',
        credentials_file: emu.keyFile,
      },
    },
    models: {
      'm-vx': {
        routes: [{ provider: 'vx', model: 'claude-sonnet-4-5@20250929' }],
        breaker: { consecutive_failures: 1, cooldown_ms: 600_000 },
      },
    },
  }),
);
const anthropic = new Anthropic({ baseURL: app.url, apiKey: TEST_KEY, maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'say something long' }];

t.test('a client that leaves a relayed Vertex stream: client_closed, and the route stays open', async (t) => {
  const ac = new AbortController();
  const stream = await anthropic.messages.create(
    { model: 'm-vx', max_tokens: 256, messages, stream: true },
    { signal: ac.signal },
  );
  for await (const event of stream) {
    t.equal(event.type, 'message_start', 'the first event came through');
    ac.abort();
    break;
  }
  const line = await waitFor("the request's log line", async () =>
    app.logs().find((l) => l.model === 'm-vx' && l.outcome !== undefined),
  );
  t.equal(line.outcome, 'client_closed', 'the log line says the client left');

  const next = await anthropic.messages.create({ model: 'm-vx', max_tokens: 256, messages });
  t.equal(next.type, 'message', 'the next request is served: the breaker did not count the client leaving');
});
