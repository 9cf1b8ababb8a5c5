// Watch the clients move (`npm run clients:watch`, issue #29): asks npm for the newest Claude Code,
// Codex CLI and Gemini CLI (`npm view <pkg> version`), runs the client suite on them
// (scripts/test-clients.ts with --versions, capturing what each sent into a temporary folder), and
// lists what is new on the wire against the last captured fixtures (test/clients/fixtures/<cli>):
// beta names (`anthropic-beta`, `openai-beta`), top-level request fields (marked when polygate's
// format module does not know them), and field paths and enum words (`thinking.display=updates`,
// `tools[].type=namespace`). Exits 1 when a run failed. Options:
//   --only=claude-code,codex       watch some CLIs
//   --no-run                       only report the versions (no install, no run)
//   --compare=DIR                  no run: list what the fixtures captured in DIR add
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clis } from '../test/clients/cli-clients.ts';
import { fixturesDir, type Fixture } from '../test/clients/fixtures.ts';
import { formats } from '../src/infra/formats/formats.ts';
import { repoRoot } from '../test/helpers/start-gateway.ts';

/** Keys whose string values are words of an enum (the values clients add new words to). */
const wordKeys = new Set([
  'type',
  'role',
  'display',
  'effort',
  'mode',
  'reasoning_effort',
  'truncation',
  'service_tier',
  'thinkingLevel',
  'summary',
  'verbosity',
  'detail',
  'include',
]);
/** Keys holding a JSON Schema or free text: their insides are the client's own, not the API's. */
const opaque = new Set(['input_schema', 'parameters', 'parametersJsonSchema', 'schema', 'properties', 'metadata']);

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg('only')?.split(',');
const selected = clis.filter((c) => !only || only.includes(c.name));

// 1. The newest versions on npm (one `npm view` each: the only registry look-ups this makes).
const newest = new Map<string, string>();
for (const c of selected) {
  const view = spawnSync('npm', ['view', c.pkg, 'version'], { encoding: 'utf8' });
  const version = view.stdout.trim();
  if (view.status !== 0 || version === '') {
    console.log(`${c.name}: npm view ${c.pkg} failed: ${view.stderr.trim().slice(0, 200)}`);
    continue;
  }
  newest.set(c.name, version);
  console.log(`${c.name}: pinned ${c.version}, newest ${version}${version === c.version ? '' : '  (NEW)'}`);
}
if (process.argv.includes('--no-run') || newest.size === 0) process.exit(0);

// 2. The suite on the newest versions; what each CLI sent straight to its own format's emulator
// is captured into a temporary folder (the stored fixtures stay as they are).
const compare = arg('compare');
const captured = compare ?? mkdtempSync(join(tmpdir(), 'polygate-watch-'));
const run = compare
  ? { stdout: '' }
  : spawnSync(
      process.execPath,
      [
        join(repoRoot, 'scripts/test-clients.ts'),
        `--only=${[...newest.keys()].join(',')}`,
        `--versions=${[...newest].map(([n, v]) => `${n}=${v}`).join(',')}`,
        '--capture',
        `--fixtures-dir=${captured}`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
    );
process.stdout.write(run.stdout);
const passed = new Map<string, boolean | undefined>();
for (const name of newest.keys()) {
  if (compare) continue;
  const lines = run.stdout.split('\n').filter((l) => l.startsWith(`PASS ${name} `) || l.startsWith(`FAIL ${name} `));
  passed.set(name, lines.length > 0 && lines.every((l) => l.startsWith('PASS')));
}

// 3. What is new on the wire.
console.log('\nwhat the newest versions send that the last captured fixtures do not:');
for (const [name, version] of newest) {
  const before = wireOf(readFixtures(join(fixturesDir, name)));
  const after = wireOf(readFixtures(join(captured, name)));
  const format = formatOf(readFixtures(join(captured, name))[0]?.path ?? '');
  const known = new Set(formats.find((f) => f.name === format)?.knownFields ?? []);
  const fresh = (k: keyof Wire): string[] => [...after[k]].filter((x) => !before[k].has(x)).sort();
  const verdict = { true: 'PASSED', false: 'FAILED', undefined: 'not run' }[String(passed.get(name))];
  console.log(`\n${name} ${version}: ${verdict} test:clients`);
  const betas = fresh('betas');
  const fields = fresh('fields').map((f) => (known.has(f) ? f : `${f}  (unknown to polygate's ${format} module)`));
  const paths = fresh('paths');
  if (after.paths.size === 0) console.log('  nothing captured (the direct run failed)');
  console.log(`  betas: ${betas.length > 0 ? betas.join(', ') : 'none new'}`);
  console.log(`  top-level fields: ${fields.length > 0 ? `\n    ${fields.join('\n    ')}` : 'none new'}`);
  console.log(`  paths and words: ${paths.length > 0 ? `\n    ${paths.join('\n    ')}` : 'none new'}`);
}
console.log(`\nfixtures of this run: ${captured}`);
process.exit([...passed.values()].every((p) => p !== false) ? 0 : 1);

type Wire = { betas: Set<string>; fields: Set<string>; paths: Set<string> };

function readFixtures(dir: string): Fixture[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as Fixture);
  } catch {
    return [];
  }
}

/** The wire format a request path belongs to. */
function formatOf(path: string): string {
  if (path.startsWith('/v1/messages')) return 'anthropic-messages';
  if (path.startsWith('/v1/responses')) return 'openai-responses';
  if (path.startsWith('/v1/chat/completions')) return 'openai-chat';
  return 'gemini';
}

/** Betas, top-level fields, and every field path (arrays as `[]`) with the words of enum-like keys. */
function wireOf(fixtures: Fixture[]): Wire {
  const w: Wire = { betas: new Set(), fields: new Set(), paths: new Set() };
  for (const f of fixtures) {
    for (const h of ['anthropic-beta', 'openai-beta'])
      for (const b of (f.headers[h] ?? '').split(',')) if (b.trim()) w.betas.add(`${h}: ${b.trim()}`);
    if (typeof f.body !== 'object' || f.body === null || Array.isArray(f.body)) continue;
    for (const k of Object.keys(f.body)) w.fields.add(k);
    walk(f.body, '', w.paths, 0);
  }
  return w;
}

function walk(v: unknown, path: string, out: Set<string>, depth: number): void {
  if (depth > 8) return;
  if (Array.isArray(v)) {
    for (const x of v) {
      if (typeof x === 'string' && wordKeys.has(path.split('.').at(-1) ?? '')) out.add(`${path}[]=${x}`);
      else walk(x, `${path}[]`, out, depth + 1);
    }
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  for (const [k, x] of Object.entries(v)) {
    const p = path === '' ? k : `${path}.${k}`;
    out.add(p);
    if (opaque.has(k)) continue;
    if (typeof x === 'string' && wordKeys.has(k)) out.add(`${p}=${x}`);
    else walk(x, p, out, depth + 1);
  }
}
