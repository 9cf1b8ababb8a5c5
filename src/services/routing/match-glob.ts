// The one glob syntax of the config: model entries under `models:` and keys' `models` allow-lists.

/** Does `seg` (literal characters and `?`) match `name` at `at`? */
const segmentAt = (seg: string, name: string, at: number): boolean => {
  for (let i = 0; i < seg.length; i++) if (seg[i] !== '?' && seg[i] !== name[at + i]) return false;
  return true;
};

/**
 * Matches a glob: `*` any run of characters, `?` one character, the rest literally. Returns what
 * each `*` matched (`{1}`, `{2}`… of a route's model), or undefined. The literal pieces between
 * stars are found leftmost, in order, so earlier stars take as little as they can; that is a
 * correct glob match in O(name × glob) time, where a regular expression would backtrack
 * polynomially on a name a client chooses.
 */
export function matchGlob(glob: string, name: string): string[] | undefined {
  const segs = glob.split('*');
  const first = segs[0];
  if (segs.length === 1) return first.length === name.length && segmentAt(first, name, 0) ? [] : undefined;
  const last = segs[segs.length - 1];
  const tail = name.length - last.length;
  if (tail < first.length || !segmentAt(first, name, 0) || !segmentAt(last, name, tail)) return undefined;
  const captures: string[] = [];
  let at = first.length;
  for (const seg of segs.slice(1, -1)) {
    let found = at;
    while (found + seg.length <= tail && !segmentAt(seg, name, found)) found++;
    if (found + seg.length > tail) return undefined;
    captures.push(name.slice(at, found));
    at = found + seg.length;
  }
  captures.push(name.slice(at, tail));
  return captures;
}
