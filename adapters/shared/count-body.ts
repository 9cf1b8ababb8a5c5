// Small readers the formats' token-count wires share (adapters/<format>/*-count.ts).
import { invalid } from '../../src/ir/gateway-error.ts';
import type { CountWire } from './format-module.ts';
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

/**
 * A count endpoint at one fixed path that takes the generate body's own fields (Messages' and
 * Responses'): a relay renames the model, a translation keeps only `fields`, and the answer holds
 * the count in `countField`.
 */
export const fixedPathCountWire = (
  path: string,
  fields: readonly string[],
  countField: string,
  relayHeaders: readonly string[],
): CountWire => ({
  relay: (body, model) => ({ path, body: { ...body, model } }),
  translate: (g) => ({ path, body: pickFields(g.body, fields) }),
  read: (body) => countIn(body, countField),
  relayHeaders,
});
