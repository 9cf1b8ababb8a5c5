// The `x-polygate-route` value (src/infra/http/header-value.ts) is kept per provider and model: it
// must be headerValue's answer for the joined pair every time, whatever the pair (control
// characters, non-ASCII, a model past the kept length) and across the store being emptied when full.
// formatOfPath's prefix rule (src/infra/http/format-of-path.ts) reads `prefix + '/'` in place: the
// same claims as the joined string's.
import t from 'tap';
import { headerValue, routeHeader } from '../../src/infra/http/header-value.ts';
import { formatOfPath } from '../../src/infra/http/format-of-path.ts';
import type { FormatModule } from '../../src/infra/formats/formats.ts';

t.test('routeHeader is headerValue of provider/model, kept or not', async (t) => {
  const models = ['gpt-4o', 'claude-3-5-sonnet', 'm\r\nx-evil: 1', 'modèle-é', '\u{1F600}', 'x'.repeat(300), ''];
  let differ = 0;
  // 2,500 distinct pairs: past the store's 1,000, so it is emptied and filled again on the way.
  for (let round = 0; round < 2; round++)
    for (let i = 0; i < 2500; i++) {
      const provider = `p${i % 3}`;
      const model = `${models[i % models.length]}${i % 400}`;
      if (routeHeader(provider, model) !== headerValue(`${provider}/${model}`)) differ++;
    }
  for (const m of models) if (routeHeader('openai', m) !== headerValue(`openai/${m}`)) differ++;
  t.equal(differ, 0, 'the same value for every pair, first time and again');
});

t.test("formatOfPath: a prefix claims itself and what follows it after a '/'", async (t) => {
  const f = (name: string, prefix: string): FormatModule => ({ name, paths: [{ prefix }] }) as unknown as FormatModule;
  const list = [f('a', '/v1/messages'), f('b', '/v1beta/'), f('c', '/v1')];
  const cases: [string, string | undefined][] = [
    ['/v1/messages', 'a'],
    ['/V1/Messages/', 'a'],
    ['/v1/messages/count_tokens', 'a'],
    ['/v1/messagesx', 'c'],
    ['/v1beta/models/x', 'b'],
    ['/v1beta', undefined],
    ['/v1', 'c'],
    ['/v1x', undefined],
    ['/v2/messages', undefined],
  ];
  for (const [path, want] of cases) t.equal(formatOfPath(path, {}, {}, list)?.name, want, path);
});
