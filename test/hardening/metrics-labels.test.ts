// Finding 9 of the hardening issue: unknown request field names became values of the `field`
// label of polygate_translation_warnings_total (10,000 requests made 40,002 series, and a field
// named "bad\nX-Injected: 1" became a label value). The label now takes a format's known
// top-level field names or `other`; the x-polygate-warnings header still names every field, on
// one line of visible ASCII.
import t from 'tap';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';

const { gw } = await gatewayWithEmulators(t, {
  upstreams: { oai: 'chat' },
  models: modelRoutes({ 'claude-via-openai': 'oai/gpt-upstream-1' }),
});

function send(extra: Record<string, unknown>): Promise<Response> {
  return postMessages(gw.url, { model: 'claude-via-openai', max_tokens: 16, messages: userSays('hi'), ...extra });
}

const warningSeries = async (): Promise<string[]> =>
  (await (await fetch(`${gw.url}/metrics`)).text())
    .split('\n')
    .filter((l) => l.startsWith('polygate_translation_warnings_total{'));

t.test('unknown field names do not become label values', async (t) => {
  for (let i = 0; i < 50; i++) {
    const r = await send({ [`made_up_${i}_a`]: 1, [`made_up_${i}_b`]: 2 });
    t.equal(r.status, 200);
    await r.arrayBuffer();
  }
  const r = await send({ 'bad\nX-Injected: 1': true, top_k: 5 });
  t.equal(r.status, 200);
  const header = r.headers.get('x-polygate-warnings') ?? '';
  t.match(header, /bad\?X-Injected: 1/, 'the header names the field, its newline replaced');
  t.match(header, /top_k/);
  t.equal(r.headers.get('x-injected'), null, 'no header was injected');
  await r.arrayBuffer();

  const series = await warningSeries();
  t.ok(series.length <= 3, `a handful of series, not one per field name (${series.length})`);
  t.notOk(
    series.some((l) => /made_up|bad|X-Injected/.test(l)),
    'no client-chosen name in a label',
  );
  t.ok(
    series.some((l) => /field="other"/.test(l)),
    'unknown fields count as other',
  );
  t.ok(
    series.some((l) => /field="top_k"/.test(l)),
    'a known field keeps its name',
  );
});

t.test('a huge number of unknown fields gives a bounded header', async (t) => {
  const many = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`field_number_${i}`, i]));
  const r = await send(many);
  t.equal(r.status, 200);
  const header = r.headers.get('x-polygate-warnings') ?? '';
  t.ok(header.length <= 2100, `header bounded (${header.length} chars)`);
  t.match(header, /\(\d+ more\)$/, 'says how many were left out');
  await r.arrayBuffer();
});
