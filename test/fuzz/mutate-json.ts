// Structure-aware mutation of JSON values for the decoder fuzz suite (test/fuzz/): a valid fixture
// with a few random edits (wrong type at any path, unknown or prototype-named keys, huge strings,
// deep nesting, Infinity, empty containers, null, NUL and lone surrogates, a subtree moved
// elsewhere, an enum word of another field) reaches far deeper into a decoder than random values,
// which mostly die at the first `typeof` check. The edits are plain data, so fast-check shrinks a
// failure to the few edits that matter.
import fc from 'fast-check';
import { sealReasoning } from '../../adapters/shared/reasoning-envelope.ts';

/**
 * Runs per property: modest in `npm test`, far more under `npm run fuzz` (FUZZ_RUNS). The seed of
 * a failure is printed with its counterexample; FUZZ_SEED (and FUZZ_PATH) replay it.
 */
export const fuzzRuns = Number(process.env.FUZZ_RUNS ?? 200);
export const fuzzParams = (): fc.Parameters<unknown> => ({
  numRuns: fuzzRuns,
  ...(process.env.FUZZ_SEED !== undefined ? { seed: Number(process.env.FUZZ_SEED) } : {}),
  ...(process.env.FUZZ_PATH !== undefined ? { path: process.env.FUZZ_PATH } : {}),
  endOnFailure: true,
});

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const huge = 'x'.repeat(100_000);
const hugeUnicode = '\u{1F600}\u0000\uD800é'.repeat(20_000);
/**
 * JSON text nested 10,000 deep: the parse-time depth limit of the HTTP layer cannot see inside a
 * string, yet tool arguments and tool results are JSON texts that encoders parse.
 */
const deepArrayText = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
const deepObjectText = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
/**
 * Reasoning envelopes (adapters/shared/reasoning-envelope.ts) as another format's client sends
 * them back in a signature or encrypted_content field: sealed, and forged with odd JSON inside.
 */
const envelopes = [
  ...(['anthropic-messages', 'gemini', 'openai-responses', 'polygate'] as const).flatMap((origin) => [
    sealReasoning({ type: 'reasoning', text: 'Let me see.', origin, signature: 'sig/+==' }, true),
    sealReasoning({ type: 'reasoning', text: '', origin, redacted: 'opaque', encrypted: 'gAAAA' }, false),
  ]),
  ...[
    '{"o":1,"s":null}',
    '{"o":"anthropic","s":"legacy"}',
    '{"o":"","s":"x"}',
    '[]',
    '{',
    `{"t":${deepArrayText}}`,
    '{"__proto__":{"s":"x"}}',
  ].map((json) => Buffer.from(`polygate-sig/1:${json}`).toString('base64')),
];

/** A value nested `depth` levels deep in arrays or objects (decoders must not recurse into a stack overflow). */
export function nested(depth: number, leaf: Json, inObject: boolean): Json {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = inObject ? { a: v, type: 'text', text: 'x' } : [v];
  return v;
}

const nastyScalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -0,
    -1,
    1,
    0.5,
    2 ** 31,
    2 ** 53 + 2,
    1e308,
    -1e308,
    Infinity,
    -Infinity,
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\u{1F600}',
    '0',
    'null',
    '{"a":',
    '[]',
    '-1',
    'NaN',
    '1e999',
  ),
  fc.constantFrom<Json>(huge, hugeUnicode, deepArrayText, deepObjectText),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.double().map((d) => (Number.isNaN(d) ? Infinity : d)),
  fc.integer(),
);

/** Values polygate can receive from a JSON body: everything JSON.parse yields (1e999 gives Infinity). */
export const nastyValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: nastyScalar },
  { weight: 2, arbitrary: fc.constantFrom<Json>([], {}, [null], [[]], { type: null }, { type: 'text' }, [''], [{}]) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 200 }), fc.boolean()).map(([d, o]) => nested(d, 'x', o)) },
);

/** Keys worth adding anywhere: the prototype's names, near misses and empty. */
const oddKeys = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'length',
  '',
  ' ',
  '0',
  'type',
  'id',
  'index',
];

/** The keys, string values and subtrees of some valid values: the vocabulary of the format. */
export type Pools = { keys: string[]; strings: string[]; subtrees: Json[] };

export function poolsOf(seeds: unknown[]): Pools {
  const keys = new Set<string>(oddKeys);
  const strings = new Set<string>();
  const subtrees: Json[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length <= 80) strings.add(v);
    } else if (Array.isArray(v)) {
      subtrees.push(v as Json);
      v.forEach(walk);
    } else if (v !== null && typeof v === 'object') {
      subtrees.push(v as Json);
      for (const [k, x] of Object.entries(v)) {
        keys.add(k);
        walk(x);
      }
    }
  };
  seeds.forEach(walk);
  return { keys: [...keys], strings: [...strings], subtrees: subtrees.slice(0, 400) };
}

type Edit =
  | { op: 'replace'; at: number; value: Json }
  | { op: 'delete'; at: number }
  | { op: 'add-key'; at: number; key: string; value: Json }
  | { op: 'duplicate'; at: number }
  | { op: 'reverse'; at: number }
  | { op: 'empty'; at: number }
  | { op: 'wrap'; at: number }
  | { op: 'deep'; at: number; depth: number; inObject: boolean }
  | { op: 'recurse'; at: number; inner: number; depth: number }
  | { op: 'restring'; at: number; value: string }
  | { op: 'splice'; at: number; pos: number; cut: number; insert: string };

/** Random edits drawn from a format's vocabulary; apply them with `applyEdits`. */
export function edits(pools: Pools, max = 4): fc.Arbitrary<Edit[]> {
  const value: fc.Arbitrary<Json> = fc.oneof(
    { weight: 3, arbitrary: nastyValue },
    { weight: 2, arbitrary: pools.strings.length > 0 ? fc.constantFrom(...pools.strings) : nastyValue },
    { weight: 2, arbitrary: pools.subtrees.length > 0 ? fc.constantFrom(...pools.subtrees) : nastyValue },
  );
  // Unbiased: fast-check favours small integers, which would hit the root and first keys only.
  const at = fc.noBias(fc.nat());
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ op: fc.constant('replace' as const), at, value }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('add-key' as const),
        at,
        key: fc.oneof(fc.constantFrom(...pools.keys), fc.string({ maxLength: 8 })),
        value,
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('duplicate' as const), at }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('reverse' as const), at }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('empty' as const), at }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('wrap' as const), at }) },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('deep' as const),
        at,
        depth: fc.integer({ min: 1, max: 200 }),
        inObject: fc.boolean(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('recurse' as const),
        at,
        inner: fc.noBias(fc.nat()),
        depth: fc.integer({ min: 1, max: 200 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('restring' as const), at, value: nastyString(pools) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('splice' as const),
        at,
        pos: fc.noBias(fc.nat()),
        cut: fc.nat({ max: 3 }),
        insert: fc.oneof(
          fc.constantFrom(
            '',
            '!',
            '\u0000',
            '%',
            '=',
            '"',
            '\\',
            '\uD800',
            ' ',
            '\n',
            '{',
            'é',
            '\u{1F600}',
            ',',
            ';',
            '/',
            ':',
            '.',
          ),
          fc.string({ maxLength: 4 }),
        ),
      }),
    },
  );
  return fc.array(edit, { minLength: 1, maxLength: max });
}

/** Strings that are JSON texts (tool arguments, tool results), huge, deep or odd. */
function nastyString(pools: Pools): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      huge,
      hugeUnicode,
      deepArrayText,
      deepObjectText,
      '',
      '\u0000',
      '\uD800',
      '{',
      '[]',
      'null',
      '1e999',
      '"x"',
      '{"a":1e999}',
      '{"__proto__":{"x":1}}',
    ),
    pools.subtrees.length > 0 ? fc.constantFrom(...pools.subtrees).map((v) => wireText(v)) : fc.string(),
    fc.constantFrom(...envelopes),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
}

type Slot = {
  parent: Json[] | { [k: string]: Json } | null;
  key: string | number;
  value: Json;
  path: Array<string | number>;
};

/** Every position in `root` (the root itself first), at most 2,000 of them. */
function slots(root: Json): Slot[] {
  const out: Slot[] = [{ parent: null, key: '', value: root, path: [] }];
  for (let i = 0; i < out.length && out.length < 2000; i++) {
    const { value: v, path } = out[i];
    if (Array.isArray(v)) v.forEach((x, k) => out.push({ parent: v, key: k, value: x, path: [...path, k] }));
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) out.push({ parent: v, key: k, value: x, path: [...path, k] });
  }
  return out;
}

/**
 * `v` nested in itself `depth` times at one of its own positions: a schema in its own `items`, a
 * filter in its own `filters`, a content block in its own `content`: recursion on client data.
 */
function selfNested(v: Json, inner: number, depth: number): Json {
  const inside = slots(v).slice(1);
  if (inside.length === 0) return v;
  const path = inside[inner % inside.length].path;
  // At most 200 levels of JSON in all, and no more than ~200 kB of copies.
  const size = wireText(v).length;
  if (size > 50_000) return v;
  const times = Math.max(1, Math.min(depth, Math.floor(200 / path.length), Math.floor(200_000 / size)));
  let out = v;
  for (let i = 0; i < times; i++) {
    const copy = clone(v) as { [k: string]: Json };
    let at: { [k: string]: Json } = copy;
    for (const k of path.slice(0, -1)) at = at[k] as { [k: string]: Json };
    at[path[path.length - 1]] = out;
    out = copy;
  }
  return out;
}

function set(root: Json, s: Slot, value: Json): Json {
  if (s.parent === null) return value;
  if (Array.isArray(s.parent)) s.parent[s.key as number] = value;
  else Object.defineProperty(s.parent, s.key, { value, enumerable: true, writable: true, configurable: true });
  return root;
}

/** Applies the edits to a copy of `seed`; positions are taken modulo the positions present. */
export function applyEdits(seed: unknown, list: Edit[]): Json {
  let root = clone(seed as Json);
  for (const e of list) {
    const all = slots(root);
    // The root itself only when there is nothing else (replacing it is what fc.anything() does),
    // but new keys go on the root too: unknown top-level fields are the commonest novelty.
    const s = all.length === 1 || (e.op === 'add-key' && e.at % 4 === 0) ? all[0] : all[1 + (e.at % (all.length - 1))];
    const v = s.value;
    switch (e.op) {
      case 'replace':
        root = set(root, s, clone(e.value));
        break;
      case 'delete':
        if (s.parent === null) root = null;
        else if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
        else delete s.parent[s.key as string];
        break;
      case 'add-key':
        if (v !== null && typeof v === 'object' && !Array.isArray(v))
          Object.defineProperty(v, e.key, {
            value: clone(e.value),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else if (Array.isArray(v)) v.push(clone(e.value));
        else root = set(root, s, { [e.key]: clone(e.value) });
        break;
      case 'duplicate':
        if (Array.isArray(v) && v.length > 0) v.push(clone(v[0]), clone(v[v.length - 1]));
        else if (s.parent !== null && Array.isArray(s.parent)) s.parent.push(clone(v));
        break;
      case 'reverse':
        if (Array.isArray(v)) v.reverse();
        else if (s.parent !== null && Array.isArray(s.parent)) s.parent.reverse();
        break;
      case 'empty':
        root = set(root, s, Array.isArray(v) ? [] : typeof v === 'string' ? '' : typeof v === 'number' ? 0 : {});
        break;
      case 'wrap':
        root = set(root, s, [clone(v)]);
        break;
      case 'deep':
        root = set(root, s, nested(e.depth, clone(v), e.inObject));
        break;
      case 'restring': {
        // A string position of the whole value, not just the one picked: most fields worth it are strings.
        const strings = all.filter((x) => typeof x.value === 'string');
        root = set(root, strings.length > 0 ? strings[e.at % strings.length] : s, e.value);
        break;
      }
      case 'splice': {
        // A small edit inside a string (a data URL, a date, an id): near misses of valid values.
        const strings = all.filter((x) => typeof x.value === 'string');
        if (strings.length === 0) break;
        const str = strings[e.at % strings.length];
        const text = str.value as string;
        const i = e.pos % (text.length + 1);
        root = set(root, str, text.slice(0, i) + e.insert + text.slice(i + e.cut));
        break;
      }
      case 'recurse':
        root = set(root, s, selfNested(v, e.inner, e.depth));
        break;
      default: {
        const never: never = e;
        throw new Error(`unknown edit ${String(never)}`);
      }
    }
  }
  return toWire(root);
}

/** A valid seed with 1..max random edits. */
export function mutated(seeds: unknown[], max = 4): fc.Arbitrary<Json> {
  const pools = poolsOf(seeds);
  return fc.tuple(fc.constantFrom(...seeds), edits(pools, max)).map(([seed, list]) => applyEdits(seed, list));
}

/** Any JSON body: mostly near-valid mutants of the seeds, sometimes anything at all. */
export function bodies(seeds: unknown[], max = 4): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 8, arbitrary: mutated(seeds, max) },
    { weight: 1, arbitrary: nastyValue },
    { weight: 1, arbitrary: fc.jsonValue() as fc.Arbitrary<Json> },
  );
}

const clone = (v: Json): Json => toWire(v);

/** `v` as JSON text, with Infinity written as 1e999 (which JSON.parse reads back as Infinity). */
export function wireText(v: unknown): string {
  const text = JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'number' && !Number.isFinite(x) && !Number.isNaN(x) ? (x > 0 ? '\u0001+inf' : '\u0001-inf') : x,
  );
  return text === undefined ? 'null' : text.replaceAll('"\\u0001+inf"', '1e999').replaceAll('"\\u0001-inf"', '-1e999');
}

/**
 * What JSON.parse would give for `v` as written on the wire: Infinity survives as 1e999, keys such
 * as `__proto__` become own properties, shared subtrees become copies.
 */
export const toWire = (v: unknown): Json => JSON.parse(wireText(v)) as Json;
