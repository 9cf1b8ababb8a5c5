// polygate's process-wide V8 settings (src/app/v8-settings.ts, bench/RESULTS.md "Session 11: GC
// mode"): allocation-site pretenuring off, set before anything else runs. A probe process keeps
// every object of one literal site alive; with V8's default the site is pretenured and new objects
// of it are allocated in the old generation at once (the first step of the "bad" GC mode), with
// the settings module imported they stay young. `--single-threaded` makes V8's decisions repeatable.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const settings = pathToFileURL(fileURLToPath(new URL('../../src/app/v8-settings.ts', import.meta.url))).href;
const probe = `
const keep = [];
function make(i) { return { a: i, b: i }; }
function fill(n) { let o; for (let i = 0; i < n; i++) keep.push((o = make(i))); return o; }
let old = 0;
for (let r = 0; r < 40; r++) if (!%InYoungGeneration(fill(50_000))) old++;
console.log(old);
`;

/** How many of the probe's 40 samples were allocated straight into the old generation. */
function oldSamples(args: string[]): number {
  const r = spawnSync(
    process.execPath,
    ['--single-threaded', '--allow-natives-syntax', ...args, '--input-type=module', '-e', probe],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(r.stdout.trim());
}

t.test("V8's default pretenures a site whose objects all survive (the probe sees it)", async (t) => {
  t.ok(oldSamples([]) > 0);
});

t.test('with the settings module imported first, no object of it is pretenured', async (t) => {
  t.equal(oldSamples(['--import', settings]), 0);
});

t.test("the operator's --allocation-site-pretenuring on node's command line wins", async (t) => {
  t.ok(oldSamples(['--allocation-site-pretenuring', '--import', settings]) > 0);
});

t.test('src/main.ts imports the settings before any other module', async (t) => {
  const main = readFileSync(fileURLToPath(new URL('../../src/main.ts', import.meta.url)), 'utf8');
  const first = /^import\s+(?:[^'"]*from\s+)?'([^']+)'/m.exec(main)?.[1];
  t.equal(first, './app/v8-settings.ts');
});
