// Issue #23, item 6: SIGTERM under load answers every request the gateway had received. Clients of
// the official Anthropic SDK (no retries, kept-alive connections) send streamed and whole
// requests in a loop; SIGTERM comes while they run. A request may be refused a connection once
// the gateway stopped accepting (ECONNREFUSED: it never arrived), but none may be reset or cut.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const up = await startAnthropicUpstream();
t.teardown(() => up.close());

/** The error codes along an error's cause chain (fetch wraps the socket's). */
function codes(e: unknown): string[] {
  const out: string[] = [];
  for (let c: unknown = e, i = 0; c && i < 6; c = (c as { cause?: unknown }).cause, i++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') out.push(code);
    const message = (c as { message?: unknown }).message;
    if (typeof message === 'string') out.push(message);
  }
  return out;
}

t.test('SIGTERM under load: every request received is answered, then exit 0', async (t) => {
  const gw = await startGateway(
    testConfig({
      providers: { anth: { type: 'anthropic', base_url: up.url, api_key: 'sk-up' } },
      models: { 'claude-x': { routes: [{ provider: 'anth', model: 'claude-up' }] } },
      shutdown_deadline_ms: 30_000,
    }),
  );
  const exit = new Promise<number | null>((resolve) => gw.process.once('exit', resolve));
  let answered = 0;
  let termed = false;
  const failures: string[] = [];
  const worker = async (w: number): Promise<void> => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
    for (let i = 0; ; i++) {
      const body = {
        model: 'claude-x',
        max_tokens: 64,
        messages: [{ role: 'user' as const, content: `worker ${w} asks question ${i}` }],
      };
      try {
        if (i % 2 === 0) await client.messages.create(body);
        else {
          let stopped = false;
          const stream = await client.messages.create({ ...body, stream: true });
          for await (const ev of stream) if (ev.type === 'message_stop') stopped = true;
          if (!stopped) throw new Error('the stream ended without message_stop');
        }
        answered++;
        if (answered === 150 && !termed) {
          termed = true;
          gw.process.kill('SIGTERM');
        }
      } catch (e) {
        const c = codes(e);
        // Not accepted: the gateway had stopped listening before this connection was opened.
        if (termed && c.includes('ECONNREFUSED')) return;
        failures.push(`${w}/${i}: ${c.join(' <- ') || String(e)}`);
        if (termed) return;
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, (_, w) => worker(w)));
  t.ok(answered >= 150, `${answered} answered`);
  t.same(failures, [], 'no request reset or cut by the shutdown');
  t.equal(await exit, 0, 'exit 0 once drained');
});
