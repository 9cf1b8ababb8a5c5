import t from 'tap';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../src/infra/config/load-config.ts';
import { node24, repoRoot } from '../helpers/start-gateway.ts';

const base = `
keys:
  - { id: k, secret: "\${KEY:-sk-default-secret}", workspace: w }
providers:
  echo: { type: echo }
  openai: { type: openai, base_url: https://api.openai.com/v1, api_key: "\${OPENAI_KEY_FOR_TEST}" }
models:
  echo: { routes: [ { provider: echo, model: e } ] }
  gpt: { routes: [ { provider: openai, model: gpt-4.1 } ] }
`;

t.test('interpolates ${VAR} and ${VAR:-default}', async (t) => {
  const a = parseConfig(base, 'a.yaml', { KEY: 'sk-from-env-123', OPENAI_KEY_FOR_TEST: 'sk-o' });
  t.equal(a.config.keys[0].secret, 'sk-from-env-123');
  t.equal(a.config.providers.openai.api_key, 'sk-o');
  const b = parseConfig(base, 'b.yaml', {});
  t.equal(b.config.keys[0].secret, 'sk-default-secret');
});

t.test('a secret holding YAML syntax cannot change the document', async (t) => {
  const c = parseConfig(base, 'c.yaml', { KEY: 'x: y # "quoted" ]', OPENAI_KEY_FOR_TEST: 'k' });
  t.equal(c.config.keys[0].secret, 'x: y # "quoted" ]');
});

t.test('a provider whose key variable is unset is disabled with a warning', async (t) => {
  const c = parseConfig(base, 'c.yaml', {});
  t.equal(c.disabledProviders.get('openai'), 'environment variable OPENAI_KEY_FOR_TEST is unset');
  t.ok(c.warnings.some((w) => w.includes("provider 'openai' is disabled")));
  t.ok(c.warnings.some((w) => w.includes("model 'gpt' has no enabled provider")));
});

t.test('defaults are filled in', async (t) => {
  const c = parseConfig(base, 'c.yaml', {});
  t.same(c.config.listen, {
    host: '127.0.0.1',
    port: 8080,
    headers_timeout_ms: 20_000,
    body_timeout_ms: 60_000,
    accept_queues: 16,
  });
  t.same(c.config.storage, { driver: 'sqlite', path: './data/polygate.db' });
  t.equal(c.config.outbound.allow_private_addresses, false);
  t.equal(c.config.upstream.max_connections, 4096, 'upstream connections per origin');
  const capped = parseConfig(`${base}\nupstream: { max_connections: 64 }\n`, 'c.yaml', {});
  t.equal(capped.config.upstream.max_connections, 64);
  t.throws(() => parseConfig(`${base}\nupstream: { max_connections: 0 }\n`, 'c.yaml', {}), /max_connections/);
});

t.test('upstream.max_answer_bytes: 64 MiB by default, a positive integer', async (t) => {
  t.equal(parseConfig(base, 'c.yaml', {}).config.upstream.max_answer_bytes, 64 * 1024 * 1024);
  const set = parseConfig(`${base}\nupstream: { max_answer_bytes: 65536 }\n`, 'c.yaml', {});
  t.equal(set.config.upstream.max_answer_bytes, 65536);
  for (const bad of ['0', '-1', '"x"', '1.5'])
    t.throws(
      () => parseConfig(`${base}\nupstream: { max_answer_bytes: ${bad} }\n`, 'c.yaml', {}),
      /upstream\.max_answer_bytes|upstream\/max_answer_bytes/,
      `${bad} is refused, naming the field`,
    );
});

t.test('every problem is listed by path and line', async (t) => {
  const bad = `listen: { port: 70000 }
keys:
  - { id: k, workspace: w }
providers:
  x: { type: nope }
models:
  m: { routes: [], typo: 1 }
`;
  const err = t.throws(() => parseConfig(bad, 'bad.yaml', {})) as unknown as ConfigError;
  t.type(err, ConfigError);
  t.match(err.problems.join('\n'), /\/listen\/port \(line 1\): must be <= 65535/);
  t.match(err.problems.join('\n'), /\/keys\/0 \(line 3\): needs exactly one of/);
  t.match(err.problems.join('\n'), /\/providers\/x\/type \(line 5\): must be one of/);
  t.match(err.problems.join('\n'), /\/models\/m\/typo \(line 7\): unknown field/);
  t.match(err.problems.join('\n'), /\/models\/m\/routes \(line 7\): must NOT have fewer than 1 items/);
});

t.test('references between sections are checked', async (t) => {
  const bad = base.replace('provider: echo, model: e', 'provider: ghost, model: e');
  const err = t.throws(() => parseConfig(bad, 'x.yaml', {})) as unknown as ConfigError;
  t.match(err.problems.join('\n'), /\/models\/echo\/routes\/0\/provider: unknown provider 'ghost'/);
});

t.test('YAML syntax errors carry the line', async (t) => {
  const err = t.throws(() => parseConfig('keys: [\n  - a\n', 'y.yaml', {})) as unknown as ConfigError;
  t.match(err.problems[0], /^line \d+, column \d+:/);
});

t.test('secret_sha256 is accepted in place of secret', async (t) => {
  const hex = createHash('sha256').update('sk-hashed-secret').digest('hex');
  const c = parseConfig(base.replace('secret: "${KEY:-sk-default-secret}"', `secret_sha256: ${hex}`), 'h.yaml', {});
  t.equal(c.config.keys[0].secret_sha256, hex);
});

t.test('npm run check-config: exit 0 on the default file, non-zero on a bad one', async (t) => {
  const good = spawnSync(node24, ['src/app/check-config.ts', 'config/gateway.yaml'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, OPENAI_API_KEY: '' },
  });
  t.equal(good.status, 0, good.stderr);
  t.match(good.stdout, /ok/);
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  writeFileSync(join(dir, 'bad.yaml'), 'keys: []\nproviders: {}\nmodels: {}\n');
  const bad = spawnSync(node24, ['src/app/check-config.ts', join(dir, 'bad.yaml')], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  t.equal(bad.status, 1);
  t.match(bad.stderr, /\/keys \(line 1\): must NOT have fewer than 1 items/);
});
