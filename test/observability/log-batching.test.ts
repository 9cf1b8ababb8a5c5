// Request lines are written in batches (src/infra/log/logger.ts, logBatch): once enough bytes have
// gathered or after a short time. A quiet gateway's single line must still show up, and lines
// pending when SIGTERM arrives must be written before the process exits.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';

const config = testConfig({
  providers: { echo: { type: 'echo' } },
  models: { echo: { routes: [{ provider: 'echo', model: 'echo' }] } },
});
const requestLines = (out: string, id: string): unknown[] =>
  out.split('\n').filter((l) => l.startsWith('{') && l.includes(`"request_id":"${id}`));

t.test('one request on a quiet gateway: its line is written though far less than a batch is pending', async (t) => {
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url });
  await client.messages.create(
    { model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
    { headers: { 'x-request-id': 'quiet-one' } },
  );
  const lines = await waitFor('the line of the only request', async () => {
    const l = requestLines(gw.output(), 'quiet-one');
    return l.length > 0 ? l : undefined;
  });
  t.equal(lines.length, 1);
});

t.test('lines pending at SIGTERM are written before the process exits', async (t) => {
  const gw = await startGateway(config);
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url });
  const ids = Array.from({ length: 5 }, (_, i) => `drain-${i}`);
  await Promise.all(
    ids.map((id) =>
      client.messages.create(
        { model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: id }] },
        { headers: { 'x-request-id': id } },
      ),
    ),
  );
  // At once: well within the batch's flush interval.
  t.equal(await gw.stop('SIGTERM'), 0);
  for (const id of ids) t.equal(requestLines(gw.output(), id).length, 1, `the line of ${id}`);
});
