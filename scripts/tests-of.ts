// Which test files check a source file: `node scripts/tests-of.ts adapters/gemini/gemini-stream-decoder.ts`
// prints the test files that import it, directly or through a test helper (test/**/*.ts that is
// not itself a test), one a line. `--run` hands them to scripts/run-tests.ts instead. Tests are
// laid out by area (docs/contributing.md, "Adding a test"); this finds them from the source's path
// whatever folder they sit in, without walking into other source files (every test would match).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const run = args.includes('--run');
const targets = args.filter((a) => a !== '--run').map((a) => resolve(a));
if (targets.length === 0) {
  process.stderr.write('usage: node scripts/tests-of.ts [--run] SOURCE_FILE...\n');
  process.exit(2);
}

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'fixtures' && e.name !== 'node_modules') yield* tsFiles(p);
    } else if (e.name.endsWith('.ts')) yield p;
  }
}

/** Each file's relative imports, resolved to absolute paths: the test tree's, and the sources'. */
function importsOf(dir: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const file of tsFiles(join(root, dir))) {
    const text = readFileSync(file, 'utf8');
    map.set(
      file,
      [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => resolve(dirname(file), m[1])),
    );
  }
  return map;
}
const imports = importsOf('test');
const sourceImports = new Map([...importsOf('src'), ...importsOf('adapters')]);

/** True when `file` imports a target, itself or through test helpers (never through source files). */
function reaches(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  for (const dep of imports.get(file) ?? []) {
    if (targets.includes(dep)) return true;
    if (imports.has(dep) && !dep.endsWith('.test.ts') && reaches(dep, seen)) return true;
  }
  return false;
}

let tests = [...imports.keys()].filter((f) => f.endsWith('.test.ts') && reaches(f));
// A file no test imports (a module's inner piece) is checked through the source files that import
// it, such as its format's index.ts: one step up at a time, at most three.
for (let step = 0; tests.length === 0 && step < 3; step++) {
  const importers = [...sourceImports].filter(
    ([f, deps]) => !targets.includes(f) && deps.some((d) => targets.includes(d)),
  );
  if (importers.length === 0) break;
  targets.push(...importers.map(([f]) => f));
  tests = [...imports.keys()].filter((f) => f.endsWith('.test.ts') && reaches(f));
}
tests = tests.map((f) => relative(root, f)).sort();
if (!run) {
  process.stdout.write(tests.map((t) => `${t}\n`).join(''));
  process.exit(tests.length > 0 ? 0 : 1);
}
if (tests.length === 0) {
  process.stderr.write('no test file imports it\n');
  process.exit(1);
}
const r = spawnSync(process.execPath, [join(root, 'scripts/run-tests.ts'), ...tests], { stdio: 'inherit' });
process.exit(r.status ?? 1);
