// Process-wide V8 settings, imported first by src/main.ts (and by the bench's framework floor, so
// both run the same runtime) so that they hold before any other module runs (ES imports evaluate
// in order) and before any request allocates.
//
// Allocation-site pretenuring off. With V8's default a gateway process fell at random (3 of 4 on a
// quiet machine) into a "bad" GC mode under load: a mark-compact during the load had V8 allocate
// ee-first's per-request listener lists (Koa's on-finished) straight into old space, and each of
// them kept its whole request alive through every scavenge (~7 MB promoted and ~20-50 ms a
// scavenge instead of ~0.3 MB and ~3-7 ms; ~10 % more CPU a request, ~80 MB more RSS). With it off
// every process stays in the good mode. Evidence: bench/RESULTS.md, "Session 11: GC mode".
import { setFlagsFromString } from 'node:v8';

/** The operator's own choice on node's command line wins: `node --allocation-site-pretenuring src/main.ts`. */
const chosen = process.execArgv.some((a) => /^--(no-?)?allocation[-_]site[-_]pretenuring(=|$)/.test(a));
if (!chosen) setFlagsFromString('--no-allocation-site-pretenuring');
