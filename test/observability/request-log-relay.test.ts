// A relayed request's log line carries the usage the relay read off the upstream's answer. The
// relay ends the client's response before its handler records that usage, so the line waits for
// both (src/app/app.ts, requestScope); before that, every relayed line had no tokens.
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { gatewayWithUpstreams } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';

type Line = {
  mode?: string;
  outcome?: string;
  status?: number;
  tokens_in?: number;
  tokens_out?: number;
  duration_ms?: number;
};

t.test('relayed Messages requests, streamed and not, log their tokens and outcome', async (t) => {
  const { gw } = await gatewayWithUpstreams(t, {
    models: { claude: { routes: [{ provider: 'anth', model: 'claude-up' }] } },
  });
  const client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url });
  const streamed = await client.messages
    .stream({ model: 'claude', max_tokens: 32, messages: [{ role: 'user', content: 'hello there' }] })
    .finalMessage();
  const whole = await client.messages.create({
    model: 'claude',
    max_tokens: 32,
    messages: [{ role: 'user', content: 'hello there' }],
  });
  const relayed = await waitFor('two relayed log lines', async () => {
    const lines = gw
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l.mode === 'passthrough');
    return lines.length >= 2 ? lines : undefined;
  });
  for (const [line, answer] of [
    [relayed[0], streamed],
    [relayed[1], whole],
  ] as const) {
    t.equal(line.status, 200);
    t.equal(line.outcome, 'ok');
    t.equal(line.tokens_in, answer.usage.input_tokens, 'input tokens as the upstream counted them');
    t.equal(line.tokens_out, answer.usage.output_tokens, 'output tokens as the upstream counted them');
    t.type(line.duration_ms, 'number');
  }
});
