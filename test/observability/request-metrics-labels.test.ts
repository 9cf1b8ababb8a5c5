// The request's metrics at its end (src/app/end-of-request.ts) share one label object: the stream
// and translation metrics read their own label names of it (no `outcome`), and the translation's
// decode and encode observations share one object whose `direction` is set for each. Every series
// must come out with exactly its metric's labels, decode and encode apart.
import t from 'tap';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';

const { gw } = await gatewayWithEmulators(t, {
  upstreams: { oai: 'chat' },
  models: modelRoutes({ 'claude-via-openai': 'oai/gpt-upstream-1' }),
});

const series = async (name: string): Promise<string[]> =>
  (await (await fetch(`${gw.url}/metrics`)).text()).split('\n').filter((l) => l.startsWith(`${name}{`));

const path =
  'family="messages",inbound_format="anthropic-messages",upstream_format="openai-chat",provider="oai",mode="translate"';

t.test('a translated JSON answer and a translated stream: each metric with its own labels', async (t) => {
  for (const stream of [false, true]) {
    const r = await postMessages(gw.url, {
      model: 'claude-via-openai',
      max_tokens: 16,
      messages: userSays('hi'),
      stream,
    });
    t.equal(r.status, 200);
    await r.arrayBuffer();
  }
  // The line and metrics are written at the response's close: give it a moment.
  await new Promise((ok) => setTimeout(ok, 100));
  const total = await series('polygate_requests_total');
  t.ok(
    total.some((l) => l === `polygate_requests_total{${path},outcome="ok"} 2`),
    `requests_total with the path and outcome: ${total.join(' | ')}`,
  );
  const decode = (await series('polygate_translation_duration_seconds_count')).filter((l) => l.includes(path));
  t.same(
    decode.map((l) => l.replace(/ \d+$/, '')).sort(),
    [
      `polygate_translation_duration_seconds_count{${path},direction="decode"}`,
      `polygate_translation_duration_seconds_count{${path},direction="encode"}`,
    ],
    'decode and encode apart, no outcome label',
  );
  t.ok(
    decode.length === 2 && decode.every((l) => l.endsWith(' 2')),
    `each direction observed for both requests: ${decode.join(' | ')}`,
  );
  t.same(await series('polygate_stream_chunks_total').then((s) => s.map((l) => l.replace(/ \d+$/, ''))), [
    `polygate_stream_chunks_total{${path}}`,
  ]);
  t.same(await series('polygate_time_to_first_byte_seconds_count').then((s) => s.map((l) => l.replace(/ \d+$/, ''))), [
    `polygate_time_to_first_byte_seconds_count{${path}}`,
  ]);
});

t.test(
  'the access line names the path and outcome in the labels order, between the models and the status',
  async (t) => {
    const out = await gw.logged(/"mode":"translate"/);
    const line = out
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes('"mode":"translate"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    t.ok(line, 'a translated request was logged');
    const keys = Object.keys(line ?? {});
    const at = keys.indexOf('upstream_model');
    t.same(keys.slice(at, at + 8), [
      'upstream_model',
      'family',
      'inbound_format',
      'upstream_format',
      'provider',
      'mode',
      'outcome',
      'status',
    ]);
    t.match(line, { family: 'messages', inbound_format: 'anthropic-messages', provider: 'oai', outcome: 'ok' });
  },
);
