import t from 'tap';
import { ModelRouter } from '../../src/services/routing/model-router.ts';

t.test('fallback keeps the configured order and skips disabled providers', async (t) => {
  const r = new ModelRouter(
    {
      m: {
        routes: [
          { provider: 'a', model: 'x' },
          { provider: 'b', model: 'y' },
          { provider: 'c', model: 'z' },
        ],
      },
    },
    new Map([['b', 'no key']]),
  );
  t.same(
    r.plan('m').map((x) => x.provider),
    ['a', 'c'],
  );
  t.same(r.plan('unknown'), []);
  t.ok(r.has('m'));
});

t.test('weighted draws the first route by weight, the rest stay as fallbacks', async (t) => {
  const r = new ModelRouter(
    {
      m: {
        strategy: 'weighted',
        routes: [
          { provider: 'a', model: 'x', weight: 3 },
          { provider: 'b', model: 'y', weight: 1 },
        ],
      },
    },
    new Map(),
  );
  t.same(
    r.plan('m', () => 0.1).map((x) => x.provider),
    ['a', 'b'],
  );
  t.same(
    r.plan('m', () => 0.9).map((x) => x.provider),
    ['b', 'a'],
  );
});

const route = (provider: string, model?: string, extra: Record<string, unknown> = {}) => ({
  provider,
  ...(model === undefined ? {} : { model }),
  ...extra,
});

t.test('an exact name wins over any glob that matches it', async (t) => {
  const r = new ModelRouter(
    {
      '*': { routes: [route('a', 'any')] },
      'claude-*': { routes: [route('b')] },
      'claude-sonnet': { routes: [route('c', 'sonnet-up')] },
    },
    new Map(),
  );
  t.same(r.resolve('claude-sonnet')?.entry, 'claude-sonnet');
  t.same(
    r.plan('claude-sonnet').map((x) => `${x.provider}/${x.model}`),
    ['c/sonnet-up'],
  );
  t.equal(r.resolve('claude-sonnet')?.glob, false);
});

t.test('the glob with the most literal characters wins, then the one written first', async (t) => {
  const r = new ModelRouter(
    {
      '*': { routes: [route('catch', 'x')] },
      'gpt-*': { routes: [route('gpt')] },
      '*-codex*': { routes: [route('codex')] },
      'gpt-5*': { routes: [route('gpt5')] },
      'g?t-5*': { routes: [route('same-literals-later')] },
    },
    new Map(),
  );
  t.equal(r.resolve('gpt-4o')?.entry, 'gpt-*');
  t.equal(r.resolve('gpt-5-codex')?.entry, '*-codex*', '6 literal characters beat gpt-5* (5)');
  t.equal(r.resolve('gpt-5.1')?.entry, 'gpt-5*', 'gpt-5* and g?t-5* both have 4 literals: the first written wins');
  t.equal(r.resolve('got-5')?.entry, 'g?t-5*');
  t.equal(r.resolve('anything')?.entry, '*');
  t.ok(r.has('whatever'));
  t.same(r.names(), [], 'globs are not listed');
});

t.test('a route without model passes the client name through; {1} is what the first * matched', async (t) => {
  const r = new ModelRouter(
    {
      'claude-*': { routes: [route('anthropic'), route('openrouter', 'anthropic/claude-{1}')] },
      'local/*': { routes: [route('ollama', '{1}')] },
      exact: { routes: [route('p')] },
    },
    new Map(),
  );
  t.same(
    r.plan('claude-haiku-4-5').map((x) => x.model),
    ['claude-haiku-4-5', 'anthropic/claude-haiku-4-5'],
  );
  t.same(
    r.plan('local/llama3').map((x) => x.model),
    ['llama3'],
  );
  t.same(
    r.plan('exact').map((x) => x.model),
    ['exact'],
    'an exact entry passes its own name',
  );
  t.same(
    r.plan('claude-haiku-4-5').map((x) => x.breakerModel),
    ['{model}', 'anthropic/claude-{1}'],
    'breakers are keyed by the configured name, not the client one',
  );
});

t.test('a standby route serves only while every other route is disabled', async (t) => {
  const models = { 'claude-*': { routes: [route('anthropic'), route('echo', 'echo', { standby: true })] } };
  t.same(
    new ModelRouter(models, new Map([['anthropic', 'no key']])).plan('claude-x').map((x) => x.provider),
    ['echo'],
  );
  t.same(
    new ModelRouter(models, new Map()).plan('claude-x').map((x) => x.provider),
    ['anthropic'],
    'never a failure fallback for an enabled provider',
  );
  t.same(
    new ModelRouter(
      models,
      new Map([
        ['anthropic', 'no key'],
        ['echo', 'off'],
      ]),
    ).plan('claude-x'),
    [],
  );
});

t.test('glob resolutions are remembered within a bound', async (t) => {
  const r = new ModelRouter({ 'm-*': { routes: [route('p')] } }, new Map());
  const wrong = Array.from({ length: 3000 }, (_, i) => `m-${i % 2000}`).filter((n) => r.plan(n)[0].model !== n);
  t.same(wrong, [], 'every name resolves to itself across cache restarts');
  t.equal(r.resolve('nope'), undefined);
});

t.test('a hostile name against a backtracking-prone glob resolves at once', async (t) => {
  const r = new ModelRouter({ '*a*a*a*a*b': { routes: [route('p')] }, '*': { routes: [route('any')] } }, new Map());
  t.equal(r.resolve('a'.repeat(5000))?.entry, '*');
});
