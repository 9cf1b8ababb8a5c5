// A stream frame's `data:` text parsed as JSON, for every upstream stream decoder. A decoder
// reports text that is not JSON in its own words; returning a marker rather than throwing keeps
// the try/catch here, once, and costs nothing per frame (no wrapper object).
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { isObject, type Json } from './narrow.ts';

/** What parseFrameJson gives for text that is not JSON: a value JSON.parse never returns. */
export const notJson: unique symbol = Symbol('not JSON');

export function parseFrameJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return notJson;
  }
}

/**
 * A frame that must hold a JSON object (every Chat Completions and Gemini chunk is one), or the
 * error that ends the stream, worded `${what} that is not JSON` / `… not an object`.
 */
export function frameObject(data: string, what: string): Json | GatewayError {
  const v = parseFrameJson(data);
  if (v === notJson) return new GatewayError('upstream', `${what} that is not JSON`);
  if (!isObject(v)) return new GatewayError('upstream', `${what} that is not an object`);
  return v;
}
