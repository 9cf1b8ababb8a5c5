import t from 'tap';
import { createHash } from 'node:crypto';
import { globMatcher, KeyRing } from '../../src/services/auth/key-ring.ts';
import { formatNamed } from '../../src/infra/formats/formats.ts';

const credential = (format: string, headers: Record<string, string>, query: Record<string, string>): string | undefined => {
  const f = formatNamed(format);
  if (!f) throw new Error(`no format ${format}`);
  return f.credential(headers, query);
};

t.test('authenticates plain and pre-hashed secrets, rejects others', async (t) => {
  const ring = new KeyRing([
    { id: 'a', secret: 'sk-alpha-secret', workspace: 'w1', models: ['*'] },
    { id: 'b', secret_sha256: createHash('sha256').update('sk-beta-secret').digest('hex'), workspace: 'w2', models: ['claude-*'] },
  ]);
  t.equal(ring.authenticate('sk-alpha-secret')?.id, 'a');
  t.equal(ring.authenticate('sk-beta-secret')?.workspace, 'w2');
  t.equal(ring.authenticate('sk-alpha-secreT'), undefined);
  t.equal(ring.authenticate(''), undefined);
  t.equal(ring.authenticate(undefined), undefined);
  t.notOk(JSON.stringify(ring.authenticate('sk-alpha-secret')).includes('sk-alpha'), 'the resolved key carries no secret');
});

t.test('model allow-list globs', async (t) => {
  const m = globMatcher(['claude-*', 'gpt-4.?']);
  t.ok(m('claude-sonnet'));
  t.ok(m('gpt-4.1'));
  t.notOk(m('gpt-4.10'));
  t.notOk(m('echo'));
  t.ok(globMatcher(['*'])('anything'));
});

t.test('credentials are read the way each format\'s clients send them', async (t) => {
  const bearer = { authorization: 'Bearer sk-1' };
  for (const f of ['tune', 'openai-audio', 'openai-responses', 'openai-chat']) t.equal(credential(f, bearer, {}), 'sk-1', f);
  t.equal(credential('anthropic-messages', { 'x-api-key': 'sk-2' }, {}), 'sk-2');
  t.equal(credential('anthropic-messages', bearer, {}), 'sk-1', 'current Anthropic SDK sends Bearer');
  t.equal(credential('gemini', { 'x-goog-api-key': 'sk-3' }, {}), 'sk-3');
  t.equal(credential('gemini', {}, { key: 'sk-4' }), 'sk-4');
  t.equal(credential('gemini', bearer, {}), undefined, 'gemini does not take Bearer');
  t.equal(credential('tune', { 'x-api-key': 'sk-2' }, {}), undefined);
});
