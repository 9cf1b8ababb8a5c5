import { GatewayError } from '../../ir/gateway-error.ts';

/** What a JSON body may hold before it is parsed (limits.max_json_depth, max_json_items, max_json_keys). */
export type JsonShapeLimits = { maxDepth: number; maxItems: number; maxKeys: number };

const Quote = 0x22;
const Backslash = 0x5c;
const Comma = 0x2c;
const Colon = 0x3a;
const OpenBrace = 0x7b;
const CloseBrace = 0x7d;
const OpenBracket = 0x5b;
const CloseBracket = 0x5d;

/**
 * One linear pass over a JSON text, before JSON.parse: nesting depth, members per array and keys
 * per object, and no `__proto__` key. Counting on the text is the only cheap place: once V8 has
 * parsed an object of a million keys, merely listing them (Object.keys, for…in) takes seconds
 * (issue #30, finding 5: a 1.5 M-key `metadata` held the event loop 6 s), and every decoder and
 * walk after the parse would do per-item work on a million items. Strings are skipped with
 * indexOf, so a body of long texts costs little. The error names the field at fault
 * (`messages.0.content`), `body` for the top level. The text is not validated here: JSON.parse
 * does that next, and a text this pass misreads (it is not JSON) fails there.
 */
export function checkJsonShape(text: string, limits: JsonShapeLimits): void {
  // Per open container: 1 object / 0 array, separators seen, the current key's quote positions.
  let { isObject, commas, keyAt, keyEnd } = scratch;
  isObject[0] = 0;
  commas[0] = 0;
  keyAt[0] = -1;
  keyEnd[0] = -1;
  let depth = 0;
  let strAt = -1;
  let strEnd = -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === Quote) {
      strAt = i;
      i = stringEnd(text, i);
      strEnd = i;
    } else if (c === Comma) {
      if (++commas[depth] >= (isObject[depth] ? limits.maxKeys : limits.maxItems))
        throw tooMany(text, depth, { isObject, commas, keyAt, keyEnd }, limits);
    } else if (c === Colon) {
      keyAt[depth] = strAt;
      keyEnd[depth] = strEnd;
      if (strEnd - strAt >= 10 && strEnd - strAt <= 60 && isProto(text.slice(strAt, strEnd + 1))) {
        throw new GatewayError('invalid-request', 'body: a "__proto__" key is not allowed', { param: 'body' });
      }
    } else if (c === OpenBrace || c === OpenBracket) {
      if (++depth > limits.maxDepth) {
        throw new GatewayError(
          'invalid-request',
          `body: JSON nested deeper than ${limits.maxDepth} levels (limits.max_json_depth)`,
          { param: 'body' },
        );
      }
      if (depth === isObject.length) ({ isObject, commas, keyAt, keyEnd } = grown(depth));
      isObject[depth] = c === OpenBrace ? 1 : 0;
      commas[depth] = 0;
      keyAt[depth] = -1;
      keyEnd[depth] = -1;
    } else if (c === CloseBrace || c === CloseBracket) {
      if (depth > 0) depth--;
    }
  }
}

/**
 * The pass's per-depth counters, kept between calls (the pass is synchronous), so a body allocates
 * nothing here; grown (doubled, the levels below kept) as a deeper body comes, never past the depth
 * one body reached.
 */
type Scratch = { isObject: Int32Array; commas: Int32Array; keyAt: Int32Array; keyEnd: Int32Array };
const scratchOf = (size: number): Scratch => ({
  isObject: new Int32Array(size),
  commas: new Int32Array(size),
  keyAt: new Int32Array(size),
  keyEnd: new Int32Array(size),
});
let scratch = scratchOf(32);
function grown(depth: number): Scratch {
  const next = scratchOf(depth * 2);
  next.isObject.set(scratch.isObject);
  next.commas.set(scratch.commas);
  next.keyAt.set(scratch.keyAt);
  next.keyEnd.set(scratch.keyEnd);
  return (scratch = next);
}

/** The error for too many members at depth `d`, naming the path down to it. */
function tooMany(text: string, d: number, at: Scratch, limits: JsonShapeLimits): GatewayError {
  const { isObject, commas, keyAt, keyEnd } = at;
  const path: string[] = [];
  for (let j = 1; j < d; j++) path.push(isObject[j] ? keyText(text, keyAt[j], keyEnd[j]) : String(commas[j]));
  const param = path.length > 0 ? path.join('.') : 'body';
  const what = isObject[d]
    ? `more than ${limits.maxKeys} keys in one object (limits.max_json_keys)`
    : `more than ${limits.maxItems} items in one array (limits.max_json_items)`;
  return new GatewayError('invalid-request', `${param}: ${what}`, { param });
}

/** The index of the quote that closes the string opened at `at` (the last index when it never closes). */
function stringEnd(text: string, at: number): number {
  let i = at;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return text.length - 1;
    let backslashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === Backslash; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/** A key as the error names it: unescaped when short, at most 64 characters, printable. */
function keyText(text: string, at: number, end: number): string {
  if (at < 0) return '?';
  let key: string;
  try {
    key = end - at <= 200 ? (JSON.parse(text.slice(at, end + 1)) as string) : text.slice(at + 1, at + 65);
  } catch {
    key = text.slice(at + 1, Math.min(end, at + 65));
  }
  return key.slice(0, 64).replace(/[^\x20-\x7e]/g, '?');
}

/** `"__proto__"`, escaped or not (the JSON text of a key, quotes included). */
function isProto(quoted: string): boolean {
  if (quoted.charCodeAt(1) !== 0x5f && quoted.charCodeAt(1) !== Backslash) return false;
  try {
    return JSON.parse(quoted) === '__proto__';
  } catch {
    return false;
  }
}
