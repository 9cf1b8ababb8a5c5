// How long an upstream asks to be left alone, read off its answer's headers: the OpenAI formats,
// Gemini, and the OpenAI-style upstreams of the speech and music families read it the same way.
import type { WireHeaders } from './chat-adapter.ts';

/** A header's value by case-insensitive name (the first, when repeated). */
export const headerNamed = (headers: WireHeaders, name: string): string | undefined => {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  return undefined;
};

/** `retry-after` (seconds or an HTTP date), in seconds; undefined when absent or unreadable. */
export function retryAfterHeader(headers: WireHeaders): number | undefined {
  const ra = headerNamed(headers, 'retry-after');
  if (ra === undefined) return undefined;
  const s = Number(ra);
  if (Number.isFinite(s) && s >= 0) return s;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** `retry-after-ms` (OpenAI's own, more precise) or `retry-after` (seconds or an HTTP date), in seconds. */
export function retryAfterOf(headers: WireHeaders): number | undefined {
  const ms = headerNamed(headers, 'retry-after-ms');
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.ceil(Number(ms) / 1000);
  return retryAfterHeader(headers);
}
