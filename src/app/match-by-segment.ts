// @koa/router tests every route of the router against every request (and its disabled `debug`
// call still allocates its arguments per route tested): with the client and operator routes on one
// router that is ~50 regular expressions a request. Routes are grouped here by their path's first
// segment (`v1`, `admin`, `console`…), and a request tests only its own group, in the same order.
import type { GatewayRouter } from '../services/runtime/gateway-context.ts';

type Layers = GatewayRouter['stack'];

/**
 * The first segment of a path, lowercased, as a group key; undefined when it cannot be compared
 * that way. Only ASCII: the router matches case-insensitively by its regular expressions' own
 * case folding, which for ASCII is exactly `toLowerCase` (other characters fold in ways it does not
 * reproduce, so such a path is tested against every route, as the router alone would).
 */
function firstSegment(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const end = path.indexOf('/', 1);
  const seg = end < 0 ? path.slice(1) : path.slice(1, end);
  return /^[\x20-\x7e]*$/.test(seg) ? seg.toLowerCase() : undefined;
}

/** A route pattern's group: its literal first segment, or undefined (a parameter, a wildcard…: in every group). */
function groupOf(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return undefined;
  const seg = firstSegment(pattern);
  return seg === undefined || /[:*?()[\]{}+\\]/.test(seg) ? undefined : seg;
}

/**
 * Makes `router` test only the routes of a request's first path segment. The router's own `match`
 * does the matching, over that group (the routes of the segment and any whose first segment is not
 * a literal, in registration order), so its results are the ones it gives over all routes: no
 * other route can match a path whose first segment differs from its literal one. Groups are
 * rebuilt when routes are added.
 */
export function matchBySegment(router: GatewayRouter): void {
  const match = router.match.bind(router);
  let indexed = -1;
  let groups = new Map<string, Layers>();
  let anyGroup: Layers = [];
  const rebuild = (all: Layers): void => {
    const keys = all.map((l) => groupOf(l.path));
    groups = new Map();
    for (const k of new Set(keys))
      if (k !== undefined)
        groups.set(
          k,
          all.filter((_, i) => keys[i] === k || keys[i] === undefined),
        );
    anyGroup = all.filter((_, i) => keys[i] === undefined);
    indexed = all.length;
  };
  router.match = (path, method) => {
    const all = router.stack;
    const seg = firstSegment(path);
    if (seg === undefined) return match(path, method);
    if (indexed !== all.length) rebuild(all);
    router.stack = groups.get(seg) ?? anyGroup;
    try {
      return match(path, method);
    } finally {
      router.stack = all;
    }
  };
}
