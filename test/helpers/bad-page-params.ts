// The admin list routes share their paging parameters (limit 1..500, an opaque cursor); each test of a
// list route checks that every bad value is refused with a 400 naming the parameter, plus its own filters.
import type { Test } from 'tap';

/** The paging values every admin list route refuses, each with the parameter its 400 must name. */
export const badPageQueries: [string, string][] = [
  ['?limit=0', 'limit'],
  ['?limit=501', 'limit'],
  ['?limit=abc', 'limit'],
  ['?cursor=bogus', 'cursor'],
];

/** Each query, fetched by `get`, answers 400 with an error whose `param` is the one it names. */
export async function assertBadParams(
  t: Test,
  get: (query: string) => Promise<Response>,
  cases: [string, string][],
): Promise<void> {
  for (const [query, param] of cases) {
    const res = await get(query);
    t.equal(res.status, 400, query);
    t.match(await res.json(), { error: { param } }, `${query} names ${param}`);
  }
}
