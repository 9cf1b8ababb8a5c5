// Validation helpers that word failures the way the Responses API does ("Missing required
// parameter: 'model'.", "Invalid 'temperature': decimal above maximum value…") and put the field
// path in `param` with OpenAI's spelling (`input[2].content[0].type`, `tools[0].max_num_results`).
// https://platform.openai.com/docs/guides/error-codes
import { invalid, type GatewayError } from '../../src/ir/gateway-error.ts';
import { int, num, str } from '../shared/narrow.ts';

export const missing = (param: string): GatewayError => invalid(param, `Missing required parameter: '${param}'.`);

/** Values that are absent for OpenAI: the key is missing or JSON null. */
export const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

export function required<T>(v: unknown, param: string, narrow: (v: unknown, param: string) => T): T {
  if (absent(v)) throw missing(param);
  return narrow(v, param);
}

const listWords = (allowed: readonly string[]): string => {
  const q = allowed.map((a) => `'${a}'`);
  return q.length <= 2 ? q.join(' and ') : `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
};

/** An enum member, worded like OpenAI: "Invalid value: 'x'. Supported values are: 'a', 'b', and 'c'." */
export function enumOf<T extends string>(v: unknown, allowed: readonly T[], param: string): T {
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  const shown = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  throw invalid(param, `Invalid value for '${param}': ${shown}. Supported values are: ${listWords(allowed)}.`);
}

/** A bound check worded like OpenAI's ("decimal below minimum value", "integer above maximum value"). */
function inBounds(n: number, param: string, kind: 'decimal' | 'integer', min: number, max: number): number {
  if (n < min)
    throw invalid(
      param,
      `Invalid '${param}': ${kind} below minimum value. Expected a value >= ${min}, but got ${n} instead.`,
    );
  if (n > max)
    throw invalid(
      param,
      `Invalid '${param}': ${kind} above maximum value. Expected a value <= ${max}, but got ${n} instead.`,
    );
  return n;
}

export const numberIn = (v: unknown, param: string, min: number, max: number): number =>
  inBounds(num(v, param), param, 'decimal', min, max);

export const integerIn = (v: unknown, param: string, min: number, max = Number.MAX_SAFE_INTEGER): number =>
  inBounds(int(v, param), param, 'integer', min, max);

/** Names of functions and JSON schema formats: letters, digits, underscore, dash; 1 to 64 characters. */
export function identifier(v: unknown, param: string): string {
  const s = str(v, param);
  if (s.length > 64)
    throw invalid(
      param,
      `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${s.length} instead.`,
    );
  if (!/^[a-zA-Z0-9_-]+$/.test(s)) {
    throw invalid(
      param,
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
    );
  }
  return s;
}
