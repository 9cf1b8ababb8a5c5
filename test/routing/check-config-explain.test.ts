// `npm run check-config -- FILE --explain NAME`: which models: entry a name hits, where each route
// goes with the name filled in, which route serves now and which keys may use it; placeholders a
// glob cannot fill are refused with the field's path.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { node24, repoRoot, testConfig } from '../helpers/start-gateway.ts';

const checkConfig = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(node24, ['src/app/check-config.ts', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', ...env },
  });

const write = (config: Record<string, unknown>): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'polygate-explain-')), 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return file;
};

t.test('the default config: CLI default names hit the globs and the standby echo serves without keys', async (t) => {
  const r = checkConfig([
    'config/gateway.yaml',
    '--explain',
    'claude-haiku-4-5-20251001',
    '--explain',
    'gpt-5-codex',
    '--explain',
    'claude-sonnet',
    '--explain',
    'mistral-large',
  ]);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /claude-haiku-4-5-20251001: glob entry 'claude-\*'/);
  t.match(
    r.stdout,
    /1\. anthropic\/claude-haiku-4-5-20251001: disabled: environment variable ANTHROPIC_API_KEY is unset/,
  );
  t.match(r.stdout, /2\. echo\/echo \(standby\): serves/);
  t.match(r.stdout, /gpt-5-codex: glob entry '\*-codex\*'/, "'*-codex*' has more literal characters than 'gpt-*'");
  t.match(r.stdout, /claude-sonnet: exact entry 'claude-sonnet'[\s\S]*no route can serve now: clients get 503/);
  t.match(r.stdout, /mistral-large: no entry under models: matches; clients get 404/);
  t.match(r.stdout, /keys allowed to use it: demo/);
});

t.test('with the key set the standby idles and the name goes upstream', async (t) => {
  const r = checkConfig(['config/gateway.yaml', '--explain', 'claude-opus-4-1'], { ANTHROPIC_API_KEY: 'sk-real' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /1\. anthropic\/claude-opus-4-1: serves/);
  t.match(r.stdout, /2\. echo\/echo \(standby\): standby, idle while another route is enabled/);
});

t.test('placeholders: {1} fills from the glob, {n} past its stars and unknown names are refused', async (t) => {
  const file = write(
    testConfig({
      models: {
        'local/*': { routes: [{ provider: 'echo', model: '{1}' }] },
        'two-*': { routes: [{ provider: 'echo', model: '{2}' }] },
        plain: { routes: [{ provider: 'echo', model: '{shape}' }] },
      },
    }),
  );
  const r = checkConfig([file, '--explain', 'local/llama3']);
  t.equal(r.status, 1);
  t.match(
    r.stderr,
    /\/models\/two-\*\/routes\/0\/model: unknown placeholder \{2\}; use \{model\}, or \{1\} to \{1\} for this glob's \*/,
  );
  t.match(
    r.stderr,
    /\/models\/plain\/routes\/0\/model: unknown placeholder \{shape\}; use \{model\} \(only a glob entry has \{1\}…\)/,
  );
  const ok = checkConfig([
    write(testConfig({ models: { 'local/*': { routes: [{ provider: 'echo', model: '{1}' }] } } })),
    '--explain',
    'local/llama3',
    '--explain',
    'echo-9',
  ]);
  t.equal(ok.status, 0, ok.stderr);
  t.match(
    ok.stdout,
    /local\/llama3: glob entry 'local\/\*'[\s\S]*1\. echo\/llama3: serves[\s\S]*keys allowed to use it: test\n/,
  );
  t.match(ok.stdout, /echo-9: no entry under models: matches/);
});
