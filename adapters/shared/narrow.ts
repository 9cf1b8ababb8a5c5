// Wire input arrives as `unknown`; these helpers narrow it and throw a GatewayError naming the
// field, so every adapter reports bad input the same way.
import { GatewayError, invalid } from '../../src/ir/gateway-error.ts';
import { jsonTextTooDeep, maxJsonTextDepth } from './json-depth.ts';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The first object of a list whose `index` is 0 or absent (a stream chunk's choice or candidate),
 * by a loop: no closure per chunk, as `find` would make (issue #28). Not a list: undefined.
 */
export function firstAtIndexZero(list: unknown): Json | undefined {
  if (!Array.isArray(list)) return undefined;
  for (let i = 0; i < list.length; i++) {
    const c: unknown = list[i];
    if (isObject(c) && (c.index === 0 || c.index === undefined)) return c;
  }
  return undefined;
}

export function obj(v: unknown, field: string): Json {
  if (!isObject(v)) throw invalid(field, `${field}: expected an object`);
  return v;
}
export function arr(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw invalid(field, `${field}: expected an array`);
  return v;
}
export function str(v: unknown, field: string): string {
  if (typeof v !== 'string') throw invalid(field, `${field}: expected a string`);
  return v;
}
export function num(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(field, `${field}: expected a number`);
  return v;
}
export function int(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(field, `${field}: expected an integer`);
  return v;
}
export function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw invalid(field, `${field}: expected a boolean`);
  return v;
}
export const optStr = (v: unknown, field: string): string | undefined =>
  v === undefined || v === null ? undefined : str(v, field);
export const optNum = (v: unknown, field: string): number | undefined =>
  v === undefined || v === null ? undefined : num(v, field);
export const optInt = (v: unknown, field: string): number | undefined =>
  v === undefined || v === null ? undefined : int(v, field);
export const optBool = (v: unknown, field: string): boolean | undefined =>
  v === undefined || v === null ? undefined : bool(v, field);

export function oneOf<T extends string>(v: unknown, allowed: readonly T[], field: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalid(field, `${field}: must be one of ${allowed.map((a) => `'${a}'`).join(', ')}`);
  }
  return v as T;
}

/** Parses a JSON text that must hold an object (tool arguments); bad JSON is the upstream's fault. */
export function parseJsonObject(text: string, what: string): Json {
  if (text.trim() === '') return {};
  if (jsonTextTooDeep(text)) throw new GatewayError('upstream', `${what} nest deeper than ${maxJsonTextDepth} levels`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new GatewayError('upstream', `${what} is not valid JSON`);
  }
  return isObject(v) ? v : { value: v };
}
