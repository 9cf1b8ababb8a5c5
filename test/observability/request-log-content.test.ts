// log.content is the one switch that puts message content into the request log line (for
// debugging); without metrics.bearer_token, /metrics is open, as Prometheus expects by default.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from './prometheus.ts';

const gw = await startInProcessGateway(testConfig({ log: { level: 'info', content: true } }));
t.teardown(() => gw.stop());

t.test('with log.content, the request line carries the request body, credentials still out', async (t) => {
  const client = new Anthropic({
    apiKey: TEST_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { 'x-request-id': 'content-on-1' },
  });
  const msg = await client.messages.create({
    model: 'echo',
    max_tokens: 16,
    messages: [{ role: 'user', content: 'debug me please' }],
  });
  t.equal(msg.content[0].type === 'text' && msg.content[0].text, 'debug me please');
  type Line = { request_id?: string; level?: string; time?: string; request_body?: { messages?: unknown } };
  let line: Line | undefined;
  await waitFor(
    async () => {
      line = gw
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line)
        .find((l) => l.request_id === 'content-on-1');
      return line !== undefined;
    },
    () => 'no log line for the request',
  );
  t.match(line, {
    level: 'info',
    time: /^\d{4}-\d\d-\d\dT/,
    request_body: { model: 'echo', messages: [{ role: 'user', content: 'debug me please' }] },
  });
  t.notOk(gw.output().includes(TEST_KEY), 'the API key is not logged');
});

t.test('without metrics.bearer_token, /metrics answers without credentials', async (t) => {
  const res = await fetch(`${gw.url}/metrics`);
  t.equal(res.status, 200);
  t.match(await res.text(), /polygate_requests_total\{family="messages"/);
});
