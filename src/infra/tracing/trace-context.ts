// Bounds on the W3C trace-context headers a client sends, before any of them reaches an upstream
// or a span (issue #30, finding 12: an 8 KB tracestate and an unbounded baggage were relayed as
// they came). The numbers are the specifications' own.

/** W3C Trace Context, tracestate: at most 32 list-members; 512 characters is what must be propagated. */
const maxTracestateMembers = 32;
const maxTracestateChars = 512;
/** Members longer than this are the first to go when the header is too long (the spec's advice). */
const longTracestateMember = 128;
/** W3C Baggage: 8192 bytes and 180 list-members at most. */
const maxBaggageBytes = 8192;
const maxBaggageMembers = 180;

const tracestateMember =
  /^[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
const traceparentPattern = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * A tracestate as polygate passes it on: well-formed members only (a malformed one is dropped, not
 * the rest), at most 32, and at most 512 characters, dropping members over 128 characters first and
 * then from the end (the right-most are the oldest). Undefined when nothing is left.
 */
export function boundTracestate(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  // More text than 32 members of the longest form could hold is not read past.
  const members: string[] = [];
  for (const m of text.slice(0, 32 * 514).split(',')) {
    const member = m.trim();
    if (member !== '' && tracestateMember.test(member)) members.push(member);
    if (members.length === maxTracestateMembers) break;
  }
  let kept = members;
  if (joinedLength(kept) > maxTracestateChars) kept = kept.filter((m) => m.length <= longTracestateMember);
  while (kept.length > 0 && joinedLength(kept) > maxTracestateChars) kept = kept.slice(0, -1);
  return kept.length > 0 ? kept.join(',') : undefined;
}

/** A baggage header within 8192 bytes and 180 members; whole members are dropped from the end, none cut. */
export function boundBaggage(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  if (text.length <= maxBaggageBytes && Buffer.byteLength(text) <= maxBaggageBytes) {
    let commas = 0;
    for (let i = text.indexOf(','); i >= 0 && commas < maxBaggageMembers; i = text.indexOf(',', i + 1)) commas++;
    if (commas < maxBaggageMembers) return text.trim() === '' ? undefined : text;
  }
  const kept: string[] = [];
  let bytes = 0;
  for (const m of text.slice(0, maxBaggageBytes * 4).split(',')) {
    const member = m.trim();
    if (member === '') continue;
    const size = Buffer.byteLength(member) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBaggageBytes || kept.length === maxBaggageMembers) break;
    kept.push(member);
    bytes += size;
  }
  return kept.length > 0 ? kept.join(',') : undefined;
}

/** A traceparent passed on only when well-formed (version 00). */
export function boundTraceparent(raw: string | string[] | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const v = raw.trim().toLowerCase();
  return traceparentPattern.test(v) ? v : undefined;
}

const joinedLength = (members: readonly string[]): number =>
  members.reduce((n, m) => n + m.length, 0) + Math.max(0, members.length - 1);
