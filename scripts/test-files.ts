// Which test files scripts/run-tests.ts runs, and in what order: the slowest first, so that with
// several files running at once the suite does not end waiting on one long file started last.
import { existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

/** Where every run writes each file's time (seconds, then the file, slowest first). */
export const TIMES_FILE = '.tap/test-times.tsv';
/** The times a clean clone starts from: a copy of a whole run's TIMES_FILE. */
export const COMMITTED_TIMES_FILE = 'test/test-times.tsv';

/** tap's own `include` and `exclude`: test/**\/*.test.ts, nothing under a fixtures or dist folder. */
const excluded = (file: string): boolean => file.split('/').some((part) => /^(fixtures*|dist)$/.test(part));

/** The test files named by `args` (files or folders, relative to `root` or absolute), or all of them. */
export function testFiles(root: string, args: readonly string[]): string[] {
  const patterns = args.length === 0 ? ['test/**/*.test.ts'] : args;
  const files = new Set<string>();
  for (const a of patterns) {
    const rel = isAbsolute(a) ? relative(root, a) : a;
    const isDir = existsSync(resolve(root, rel)) && statSync(resolve(root, rel)).isDirectory();
    const found = isDir
      ? globSync(`${rel.replace(/\/$/, '')}/**/*.test.ts`, { cwd: root })
      : globSync(rel, { cwd: root });
    for (const f of found) if (!excluded(f)) files.add(f.split('\\').join('/'));
  }
  return [...files].sort((a, b) => a.localeCompare(b, 'en'));
}

/** Seconds per file from a times file (a missing or unreadable one gives none). */
function readTimes(path: string): Map<string, number> {
  const times = new Map<string, number>();
  if (!existsSync(path)) return times;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [s, file] = line.split('\t');
    if (file && Number.isFinite(Number(s))) times.set(file, Number(s));
  }
  return times;
}

/** The times known before this run: the committed ones, overridden by this checkout's last runs. */
export function knownTimes(root: string): Map<string, number> {
  return new Map([...readTimes(resolve(root, COMMITTED_TIMES_FILE)), ...readTimes(resolve(root, TIMES_FILE))]);
}

/**
 * `files`, slowest first by the times known (`knownTimes`); a file with none is given the median
 * time, as likely as any to be long.
 */
export function slowestFirst(files: readonly string[], times: ReadonlyMap<string, number>): string[] {
  const known = [...times.values()].sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 0;
  const time = (f: string): number => times.get(f) ?? median;
  return [...files].sort((a, b) => time(b) - time(a) || a.localeCompare(b, 'en'));
}
