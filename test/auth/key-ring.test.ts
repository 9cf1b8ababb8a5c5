import t from 'tap';
import { createHash } from 'node:crypto';
import { globMatcher, KeyRing } from '../../src/services/auth/key-ring.ts';
import { formatNamed } from '../../src/infra/formats/formats.ts';

const credential = (
  format: string,
  headers: Record<string, string>,
  query: Record<string, string>,
): string | undefined => {
  const f = formatNamed(format);
  if (!f) throw new Error(`no format ${format}`);
  return f.credential(headers, query);
};

t.test('authenticates plain and pre-hashed secrets, rejects others', async (t) => {
  const ring = new KeyRing([
    { id: 'a', secret: 'sk-alpha-secret', workspace: 'w1', models: ['*'] },
    {
      id: 'b',
      secret_sha256: createHash('sha256').update('sk-beta-secret').digest('hex'),
      workspace: 'w2',
      models: ['claude-*'],
    },
  ]);
  t.equal(ring.authenticate('sk-alpha-secret')?.id, 'a');
  t.equal(ring.authenticate('sk-beta-secret')?.workspace, 'w2');
  t.equal(ring.authenticate('sk-alpha-secreT'), undefined);
  t.equal(ring.authenticate(''), undefined);
  t.equal(ring.authenticate(undefined), undefined);
  t.notOk(
    JSON.stringify(ring.authenticate('sk-alpha-secret')).includes('sk-alpha'),
    'the resolved key carries no secret',
  );
});

t.test('model allow-list globs', async (t) => {
  const m = globMatcher(['claude-*', 'gpt-4.?']);
  t.ok(m('claude-sonnet'));
  t.ok(m('gpt-4.1'));
  t.notOk(m('gpt-4.10'));
  t.notOk(m('echo'));
  t.ok(globMatcher(['*'])('anything'));
});

t.test("credentials are read the way each format's clients send them", async (t) => {
  const bearer = { authorization: 'Bearer sk-1' };
  for (const f of ['tune', 'openai-audio', 'openai-responses', 'openai-chat'])
    t.equal(credential(f, bearer, {}), 'sk-1', f);
  t.equal(credential('anthropic-messages', { 'x-api-key': 'sk-2' }, {}), 'sk-2');
  t.equal(credential('anthropic-messages', bearer, {}), 'sk-1', 'current Anthropic SDK sends Bearer');
  t.equal(credential('gemini', { 'x-goog-api-key': 'sk-3' }, {}), 'sk-3');
  t.equal(credential('gemini', {}, { key: 'sk-4' }), 'sk-4');
  t.equal(credential('gemini', bearer, {}), undefined, 'gemini does not take Bearer');
  t.equal(credential('tune', { 'x-api-key': 'sk-2' }, {}), undefined);
});

t.test('thousands of keys: each secret finds its own key, and only its own', async (t) => {
  const keys = Array.from({ length: 5000 }, (_, i) => ({
    id: `k${i}`,
    secret: `sk-many-${i}-secret`,
    workspace: `w${i % 7}`,
    models: ['*'],
  }));
  // One of them pre-hashed, as an operator keeping no plaintext in the file would write it.
  keys[4321] = {
    ...keys[4321],
    secret: undefined as unknown as string,
    secret_sha256: createHash('sha256').update('sk-many-4321-secret').digest('hex'),
  } as (typeof keys)[number];
  const ring = new KeyRing(keys);
  let right = 0;
  for (let i = 0; i < 5000; i += 7) if (ring.authenticate(`sk-many-${i}-secret`)?.id === `k${i}`) right++;
  t.equal(right, Math.ceil(5000 / 7));
  t.equal(ring.authenticate('sk-many-4321-secret')?.id, 'k4321', 'a pre-hashed secret');
  t.equal(ring.authenticate('sk-many-5000-secret'), undefined);
  t.equal(ring.authenticate('sk-many-1-secre'), undefined, 'a prefix of a secret is not the secret');
});

t.test('a secret configured for two keys resolves to the first, as before', async (t) => {
  const ring = new KeyRing([
    { id: 'first', secret: 'sk-shared-secret', workspace: 'w1' },
    { id: 'second', secret: 'sk-shared-secret', workspace: 'w2' },
  ]);
  t.equal(ring.authenticate('sk-shared-secret')?.id, 'first');
});
