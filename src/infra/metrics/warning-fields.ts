// The `field` label of polygate_translation_warnings_total. Warnings name request fields, and a
// client may send any field name it likes (an unknown field is dropped with a warning), so the
// label takes only the top-level name and only from a fixed list per inbound format: the request
// fields of that format's API (its SDK's request type) and the IR words the upstream encoders use
// for settings several formats share. Anything else counts as `other`; the header and the log
// still name it.
import { formats } from '../formats/formats.ts';

const shared = [
  'cache',
  'cache_control',
  'detail',
  'reasoning',
  'parallelToolCalls',
  'strict',
  'user',
  'metadata',
  'tools',
  'messages',
  'top_k',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'logprobs',
];

/** Each format's own request fields (its module's `knownFields`, src/infra/formats/formats.ts) plus the shared IR words. */
const known = new Map<string, ReadonlySet<string>>(
  formats.map((f) => [f.name, new Set([...f.knownFields, ...shared])]),
);

/** The label value for a warning about `field` on a request in `inboundFormat`. */
export function warningFieldLabel(inboundFormat: string, field: string): string {
  const top = /^[^.[]*/.exec(field)?.[0] ?? '';
  return known.get(inboundFormat)?.has(top) ? top : 'other';
}

/** Header values are bounded too: a request with thousands of unknown fields gets a short summary. */
const maxHeaderChars = 2048;

/** The `x-polygate-warnings` value: one line of visible ASCII (no CR/LF from client text), bounded. */
export function warningsHeader(warnings: readonly string[]): string | undefined {
  if (warnings.length === 0) return undefined;
  let out = '';
  let shown = 0;
  for (const w of warnings) {
    const next = (out ? '; ' : '') + w.replace(/[^\x20-\x7e]/g, '?');
    if (out.length + next.length > maxHeaderChars) break;
    out += next;
    shown++;
  }
  return shown < warnings.length ? `${out}${out ? '; ' : ''}(${warnings.length - shown} more)` : out;
}
