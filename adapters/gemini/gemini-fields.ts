// Field access for Gemini request bodies. The API is proto3 JSON, which accepts both the
// lowerCamelCase and the original snake_case field name (the spec's examples use both:
// `inline_data`, `system_instruction`, `generation_config`…), so every read goes through `pick`,
// and error paths name the field the way the client spelled it
// (https://protobuf.dev/programming-guides/json/, https://ai.google.dev/api/generate-content).
import { invalid } from '../../src/ir/gateway-error.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import type { Json } from '../shared/narrow.ts';

/**
 * Each spelling worked out once per name (issue #28: the regular expression's replace with a
 * callback per field read was ~9 % of a Gemini-in request's CPU). Bounded: the names are the
 * adapter's own fields and the keys clients send; past the bound a name is worked out again.
 */
const spellings = { snake: new Map<string, string>(), camel: new Map<string, string>() };
const maxSpellings = 2048;

function spelled(cache: Map<string, string>, name: string, spell: (name: string) => string): string {
  let s = cache.get(name);
  if (s === undefined) {
    s = spell(name);
    if (cache.size < maxSpellings) cache.set(name, s);
  }
  return s;
}

const toSnake = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const toCamel = (name: string): string => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
export const snakeOf = (camel: string): string => spelled(spellings.snake, camel, toSnake);
export const camelOf = (name: string): string => spelled(spellings.camel, name, toCamel);

export const pathOf = (at: string, key: string): string => (at === '' ? key : `${at}.${key}`);

/**
 * A field's value under either spelling, and its path in the client's own spelling. The path is
 * written out only when read (issue #28: most fields a decoder asks for are absent, and most paths
 * are only ever shown in an error; building each one was a string per field read).
 */
export class Picked {
  readonly value: unknown;
  readonly #at: string;
  readonly #key: string;
  constructor(value: unknown, at: string, key: string) {
    this.value = value;
    this.#at = at;
    this.#key = key;
  }
  get path(): string {
    return pathOf(this.#at, this.#key);
  }
}

export function pick(o: Json, camel: string, at: string): Picked {
  const v = o[camel];
  if (v !== undefined) return new Picked(v, at, camel);
  const snake = snakeOf(camel);
  const s = o[snake];
  return new Picked(s, at, snake !== camel && s !== undefined ? snake : camel);
}

/** The value alone, for a read that only asks whether the field is there (no Picked). */
export function valueOf(o: Json, camel: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : o[snakeOf(camel)];
}

const noKeys: ReadonlyArray<{ camel: string; key: string }> = Object.freeze([]);

/**
 * Keys of `o` (camelCased) that are not in `known`, with the spelling the client used. A key
 * spelled as a known name is known without working out its camelCase (known names have no `_`, so
 * that spelling is their own); nothing unknown, no array.
 */
export function unknownKeys(o: Json, known: readonly string[]): ReadonlyArray<{ camel: string; key: string }> {
  let out: Array<{ camel: string; key: string }> | undefined;
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (known.includes(key)) continue;
    const camel = camelOf(key);
    if (!known.includes(camel) && o[key] !== undefined) (out ??= []).push({ camel, key });
  }
  return out ?? noKeys;
}

/**
 * Open world (docs/open-world.md): a field this adapter does not know is no error. It is noted under its
 * path (adapters/shared/dropped-fields.ts), so each upstream encoder names it in a warning; a
 * Gemini upstream gets the whole body by relay anyway.
 */
export function noteUnknown(o: Json, known: readonly string[], at: string, dropped: DroppedField[]): void {
  const unknown = unknownKeys(o, known);
  for (let i = 0; i < unknown.length; i++) dropped.push({ field: pathOf(at, unknown[i].key), value: unknown[i].camel });
}

/** A number inside [min, max], checked with the spec's limit in the message. */
export function inRange(v: number, min: number, max: number, path: string): number {
  if (v < min || v > max) throw invalid(path, `${path}: must be between ${min} and ${max} (got ${v})`);
  return v;
}

/** proto3 JSON sends int64 as a string; int32 fields arrive as numbers. Both are accepted. */
export function intLike(v: unknown, path: string): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw invalid(path, `${path}: expected an integer`);
  return n;
}
