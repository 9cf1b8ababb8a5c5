// Process-wide V8 settings, imported first by src/main.ts (and by the bench's framework floor, so
// both run the same runtime) so that they hold before any other module runs (ES imports evaluate
// in order) and before any request allocates.
//
// Allocation-site pretenuring off. With V8's default, each process fell at random into one of two
// GC modes under load; in the bad one (3 of 4 processes) every scavenge promoted ~8 MB and took
// ~20 ms (GC ~100-130 ms per second of load, req/s ~20 % lower); with it off every process stays in
// the good one (~3 ms scavenges, ~0.5 MB promoted). Evidence: bench/RESULTS.md, "Session 11: GC mode".
import { setFlagsFromString } from 'node:v8';

/** The operator's own choice on node's command line wins: `node --allocation-site-pretenuring src/main.ts`. */
const chosen = process.execArgv.some((a) => /^--(no-)?allocation[-_]site[-_]pretenuring$/.test(a));
if (!chosen) setFlagsFromString('--no-allocation-site-pretenuring');
