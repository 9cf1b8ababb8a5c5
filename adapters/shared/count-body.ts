// Small readers the formats' token-count wires share (adapters/<format>/*-count.ts).
import { invalid } from '../../src/ir/gateway-error.ts';
import { isObject, type Json } from './narrow.ts';

/** Only `fields` of a body (an upstream's count endpoint refuses generation-only ones). */
export const pickFields = (body: unknown, fields: readonly string[]): Json =>
  isObject(body) ? Object.fromEntries(fields.filter((f) => body[f] !== undefined).map((f) => [f, body[f]])) : {};

/** A non-negative integer count in `body[field]`; undefined when there is none. */
export const countIn = (body: unknown, field: string): number | undefined => {
  const n = isObject(body) ? body[field] : undefined;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/** The count body as an object: anything else is bad input. */
export const countBody = (v: unknown): Json => {
  if (!isObject(v)) throw invalid('body', 'request body: expected a JSON object');
  return v;
};
