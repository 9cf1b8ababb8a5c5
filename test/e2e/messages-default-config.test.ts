// Done-when of the core: the default config starts with no upstream keys, and the official
// Anthropic SDK gets the echoed text back from model `echo`, plain and streamed.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { join } from 'node:path';
import { repoRoot, startGateway } from '../helpers/start-gateway.ts';

const env: Record<string, string> = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', POLYGATE_KEY: '' };
const gw = await startGateway(join(repoRoot, 'config/gateway.yaml'), env);
t.teardown(() => gw.stop());
const client = new Anthropic({ apiKey: 'sk-polygate-demo', baseURL: gw.url, maxRetries: 0 });

t.test('messages.create with model echo returns the echoed text', async (t) => {
  const msg = await client.messages.create({
    model: 'echo',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hello from the default config' }],
  });
  t.equal(msg.content[0].type, 'text');
  t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'hello from the default config');
  t.equal(msg.stop_reason, 'end_turn');
  t.equal(msg.model, 'echo');
});

t.test('messages.stream().finalMessage() with model echo returns the echoed text', async (t) => {
  const stream = client.messages.stream({
    model: 'echo',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'stream these words back' }],
  });
  const deltas: string[] = [];
  stream.on('text', (d) => deltas.push(d));
  const msg = await stream.finalMessage();
  t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'stream these words back');
  t.ok(deltas.length >= 4, 'streamed word by word');
  t.equal(deltas.join(''), 'stream these words back');
});

t.test('providers without keys are disabled with a warning, and their models answer 503', async (t) => {
  await gw.matchLog(t, /provider 'anthropic' is disabled: environment variable ANTHROPIC_API_KEY is unset/);
  const err = await client.messages
    .create({ model: 'claude-sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.type(err, Anthropic.APIError);
  t.equal((err as InstanceType<typeof Anthropic.APIError>).status, 503);
  t.match((err as Error).message, /no provider that can serve it/);
});

t.test('GET /healthz and /metrics answer', async (t) => {
  const h = await fetch(`${gw.url}/healthz`);
  t.equal(h.status, 200);
  const m = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(
    m,
    /polygate_requests_total\{family="messages",inbound_format="anthropic-messages",upstream_format="echo",provider="echo",mode="translate",outcome="ok"\} \d+/,
  );
  t.match(m, /polygate_request_duration_seconds_bucket\{/);
});
