import t from 'tap';
import { ModelRouter } from '../../src/routing/model-router.ts';

t.test('fallback keeps the configured order and skips disabled providers', async (t) => {
  const r = new ModelRouter({ m: { routes: [{ provider: 'a', model: 'x' }, { provider: 'b', model: 'y' }, { provider: 'c', model: 'z' }] } }, new Map([['b', 'no key']]));
  t.same(r.plan('m').map((x) => x.provider), ['a', 'c']);
  t.same(r.plan('unknown'), []);
  t.ok(r.has('m'));
});

t.test('weighted draws the first route by weight, the rest stay as fallbacks', async (t) => {
  const r = new ModelRouter({ m: { strategy: 'weighted', routes: [{ provider: 'a', model: 'x', weight: 3 }, { provider: 'b', model: 'y', weight: 1 }] } }, new Map());
  t.same(r.plan('m', () => 0.1).map((x) => x.provider), ['a', 'b']);
  t.same(r.plan('m', () => 0.9).map((x) => x.provider), ['b', 'a']);
});
