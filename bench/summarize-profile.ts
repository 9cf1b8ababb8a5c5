// Reads a V8 .cpuprofile (node --cpu-prof) and lists where the time went: the functions with the
// most self time; self and inclusive time grouped by where the code lives (polygate's own files,
// each dependency, Node internals, GC); and the inclusive time of polygate's own functions, so a
// profile reads as "what to make faster next" (a cost spread over many small natives, such as a
// log line's serialization and write, only shows up whole in the inclusive view).
//
//   node bench/summarize-profile.ts FILE.cpuprofile [--top 25] [--skip-s 3] [--callers writeUtf8String]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

export type Entry = { name: string; where: string; ms: number; share: number };
export type ProfileSummary = {
  totalMs: number;
  busyMs: number;
  selfFunctions: Entry[];
  selfPlaces: Entry[];
  inclusivePlaces: Entry[];
  inclusiveOwn: Entry[];
  /** For `callersOf`: where the samples of that function came from, as chains of places. */
  callers: Entry[];
};

/** Where a function lives: `src/…` and `adapters/…` files by path, dependencies by package name. */
function placeOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native: JSON, buffers, sockets)';
  if (url.startsWith('wasm://')) return 'dep: undici (llhttp, wasm)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `dep: ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const m = /\/(src|adapters|bench)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : url;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const m = /\/((?:src|adapters|bench)\/.*)$/.exec(url);
  return m ? m[1] : url;
}

const isOwn = (url: string): boolean => /\/(src|adapters)\//.test(url) && !url.includes('node_modules/');

/**
 * `window` (µs on the monotonic clock, the one `process.hrtime` reads and V8 stamps samples
 * with) keeps only the samples taken under load, leaving out start-up and warm-up.
 */
export function summarizeProfile(
  file: string,
  top = 25,
  window?: { fromUs: number; toUs: number },
  callersOf?: string,
): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<number, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const delta = p.timeDeltas[i] ?? 0;
    t += delta;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + delta / 1000);
  }

  const label = (n: ProfileNode): { key: string; name: string; where: string; place: string } => {
    const { functionName, url, lineNumber } = n.callFrame;
    const name = functionName || '(anonymous)';
    return {
      key: `${name}@${url}:${lineNumber}`,
      name,
      where: url ? `${shortUrl(url)}:${lineNumber + 1}` : '',
      place: placeOf(url, name),
    };
  };
  const add = (m: Map<string, Entry>, key: string, name: string, where: string, ms: number): void => {
    const e = m.get(key) ?? { name, where, ms: 0, share: 0 };
    e.ms += ms;
    m.set(key, e);
  };

  const selfFunctions = new Map<string, Entry>();
  const selfPlaces = new Map<string, Entry>();
  const inclusivePlaces = new Map<string, Entry>();
  const inclusiveOwn = new Map<string, Entry>();
  const callers = new Map<string, Entry>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, ms] of self) {
    const leaf = byId.get(id)!;
    totalMs += ms;
    if (leaf.callFrame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    const l = label(leaf);
    add(selfFunctions, l.key, l.name, l.where, ms);
    add(selfPlaces, l.place, l.place, '', ms);
    // Each place and each own function counts once per sample, however deep it recurses.
    const places = new Set<string>();
    const own = new Set<string>();
    const chain: string[] = [];
    for (let n: ProfileNode | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const x = label(n);
      if (x.place !== chain[chain.length - 1] && chain.length < 8) chain.push(x.place);
      if (!places.has(x.place)) {
        places.add(x.place);
        add(inclusivePlaces, x.place, x.place, '', ms);
      }
      if (isOwn(n.callFrame.url) && !own.has(x.key)) {
        own.add(x.key);
        add(inclusiveOwn, x.key, x.name, x.where, ms);
      }
    }
    if (callersOf && l.name === callersOf) add(callers, chain.join(' ← '), chain.join(' ← '), '', ms);
  }
  const busyMs = totalMs - idleMs;
  const rank = (m: Map<string, Entry>): Entry[] =>
    [...m.values()]
      .map((e) => ({ ...e, share: e.ms / busyMs }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top);
  // The root and the task-queue frames are on every stack: they say nothing about where time goes.
  for (const frame of ['(root)', 'node: internal/process']) inclusivePlaces.delete(frame);
  return {
    totalMs,
    busyMs,
    selfFunctions: rank(selfFunctions),
    selfPlaces: rank(selfPlaces),
    inclusivePlaces: rank(inclusivePlaces),
    inclusiveOwn: rank(inclusiveOwn),
    callers: rank(callers),
  };
}

export function renderProfile(s: ProfileSummary): string[] {
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  const rows = Math.max(s.selfPlaces.length, s.inclusivePlaces.length);
  return [
    `Busy ${(s.busyMs / 1000).toFixed(1)} s of ${(s.totalMs / 1000).toFixed(1)} s sampled; shares are of the busy time.`,
    '',
    '| self | function | where |',
    '|---:|---|---|',
    ...s.selfFunctions.map((f) => `| ${pct(f.share)} | \`${f.name}\` | ${f.where} |`),
    '',
    '| self | code | | inclusive | code |',
    '|---:|---|---|---:|---|',
    ...Array.from({ length: rows }, (_, i) => {
      const a = s.selfPlaces[i];
      const b = s.inclusivePlaces[i];
      return `| ${a ? pct(a.share) : ''} | ${a?.name ?? ''} | | ${b ? pct(b.share) : ''} | ${b?.name ?? ''} |`;
    }),
    '',
    '| inclusive | polygate function | where |',
    '|---:|---|---|',
    ...s.inclusiveOwn.map((f) => `| ${pct(f.share)} | \`${f.name}\` | ${f.where} |`),
    ...(s.callers.length > 0
      ? [
          '',
          '| self | called from (leaf ← … ← root, by place) |',
          '|---:|---|',
          ...s.callers.map((c) => `| ${pct(c.share)} | ${c.name} |`),
        ]
      : []),
  ];
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '25' },
      callers: { type: 'string' },
      'skip-s': { type: 'string', default: '0' },
    },
  });
  for (const file of positionals) {
    // --skip-s leaves out the first seconds (start-up, module loading, warm-up).
    const { startTime } = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const window = { fromUs: startTime + Number(values['skip-s']) * 1e6, toUs: Number.POSITIVE_INFINITY };
    process.stdout.write(
      `## ${file}\n\n${renderProfile(summarizeProfile(file, Number(values.top), window, values.callers)).join('\n')}\n\n`,
    );
  }
}
