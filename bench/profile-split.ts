// µs of busy CPU per request of two profiles side by side, grouped by what the code is (issue #28:
// where a relayed request's microseconds go against a translated one's). Reads two .cpuprofile
// files of `npm run bench:profile` and the req/s each was profiled at (its summary.md headings),
// keeps the last `--seconds` of each (the load; start-up left out), and gives self time per group
// (the upstream client, polygate's upstream call, translation's own work, node's streams and
// events, the shared pipeline, ...) and per place, A beside B and A − B.
//
//   node bench/profile-split.ts A.cpuprofile A_REQ_PER_S B.cpuprofile B_REQ_PER_S [--seconds 8] [--top 30]
//
// A process's own speed differs run to run on a shared machine (the same Koa code read 1.8× in two
// processes profiled a minute apart): the `shared pipeline` row, the same code in both, says how far.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type Node = { id: number; callFrame: { functionName: string; url: string } };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '8' }, top: { type: 'string', default: '30' } },
});
if (positionals.length !== 4) {
  process.stderr.write('usage: node bench/profile-split.ts A.cpuprofile A_REQ_PER_S B.cpuprofile B_REQ_PER_S\n');
  process.exit(2);
}

/** Where a function lives: polygate's files by path, dependencies by package, node by module. */
function placeOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('wasm://')) return 'dep: undici';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `dep: ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return `node: ${url.slice(5)}`;
  const m = /\/(src|adapters|bench)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : url;
}

const groups: [string, (place: string) => boolean][] = [
  [
    'upstream client: node:http client + agent, http-proxy',
    (p) => /^node: (_http_client|_http_agent|http)$|^dep: (http-proxy|eventemitter3|requires-port)$/.test(p),
  ],
  ['upstream client: undici', (p) => p === 'dep: undici'],
  [
    "polygate's relay (pass-through, relay-*, relay-proxy, relay-target)",
    (p) => /^src\/(families\/chat\/(pass-through|relay-[a-z-]+)|infra\/upstream\/relay-[a-z-]+)\.ts$/.test(p),
  ],
  [
    "polygate's translated call (http-chat-provider, upstream-answer/-request)",
    (p) => /^src\/(services\/providers\/http-chat-provider|infra\/upstream\/upstream-(answer|request))\.ts$/.test(p),
  ],
  ["translation's own (adapters, token estimate)", (p) => /^adapters\/|^src\/services\/tokens\//.test(p)],
  [
    'node: HTTP messages (incoming, outgoing, common, server)',
    (p) => /^node: _http_(incoming|outgoing|common|server)$/.test(p),
  ],
  [
    'node: streams, events, ticks, timers',
    (p) => /^node: (internal\/streams\/|events|internal\/(process|timers))/.test(p),
  ],
  ['native (JSON, buffers, socket writes)', (p) => p === '(native)'],
  ['GC', (p) => p === '(garbage collector)'],
  ['(program)', (p) => p === '(program)'],
];
const shared = 'shared pipeline (Koa, auth, limits, ledger, log, the rest)';
const groupOf = (place: string): string => groups.find(([, test]) => test(place))?.[0] ?? shared;

function perRequest(file: string, reqPerS: number): { byPlace: Map<string, number>; busy: number } {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const from = p.endTime - Number(values.seconds) * 1e6;
  const byPlace = new Map<string, number>();
  let t = p.startTime;
  let busy = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const delta = p.timeDeltas[i] ?? 0;
    t += delta;
    if (t < from) continue;
    const { functionName, url } = byId.get(p.samples[i])!.callFrame;
    if (functionName === '(idle)') continue;
    busy += delta;
    const place = placeOf(url, functionName);
    byPlace.set(place, (byPlace.get(place) ?? 0) + delta);
  }
  const requests = reqPerS * Number(values.seconds);
  for (const [k, v] of byPlace) byPlace.set(k, v / requests);
  return { byPlace, busy: busy / requests };
}

const a = perRequest(positionals[0], Number(positionals[1]));
const b = perRequest(positionals[2], Number(positionals[3]));
const f = (x: number): string => x.toFixed(1);
const sumBy = (m: Map<string, number>): Map<string, number> => {
  const out = new Map<string, number>();
  for (const [place, us] of m) out.set(groupOf(place), (out.get(groupOf(place)) ?? 0) + us);
  return out;
};
const ga = sumBy(a.byPlace);
const gb = sumBy(b.byPlace);
const lines = [
  `A: ${positionals[0]}`,
  `B: ${positionals[2]}`,
  '',
  '| µs of busy CPU per request (self time) | A | B | A − B |',
  '|---|---:|---:|---:|',
];
for (const g of [...groups.map(([name]) => name), shared])
  lines.push(`| ${g} | ${f(ga.get(g) ?? 0)} | ${f(gb.get(g) ?? 0)} | ${f((ga.get(g) ?? 0) - (gb.get(g) ?? 0))} |`);
lines.push(`| **busy, all** | **${f(a.busy)}** | **${f(b.busy)}** | **${f(a.busy - b.busy)}** |`, '');
lines.push('| place | A | B | A − B |', '|---|---:|---:|---:|');
const places = [...new Set([...a.byPlace.keys(), ...b.byPlace.keys()])]
  .map((k) => [k, a.byPlace.get(k) ?? 0, b.byPlace.get(k) ?? 0] as const)
  .sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]))
  .slice(0, Number(values.top));
for (const [k, x, y] of places) lines.push(`| ${k} | ${f(x)} | ${f(y)} | ${f(x - y)} |`);
process.stdout.write(lines.join('\n') + '\n');
