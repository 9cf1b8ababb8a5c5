// Open world on translated routes (docs/open-world.md "No closed enums"): a client newer than
// polygate sends enum words polygate has never seen (Claude Code's `thinking.display: "updates"`,
// a new effort level, a new tool_choice mode). Such a word is no error. It is read as the nearest
// known word where one has the same meaning, otherwise the setting is left out; either way the
// decoder notes it, and the note becomes a warning on every translated route (ChatRequest.unmapped,
// named in x-polygate-warnings, the warnings metric and the log line). A value of the wrong JSON
// type is still the client's 400: that is a broken request, not a newer one.
import type { ReasoningEffort, Unmapped } from '../../src/ir/chat-request.ts';
import type { DroppedField } from './dropped-fields.ts';
import { str } from './narrow.ts';

/** Where a decoder notes a word it read as another, or left out. */
export type EnumNote = (field: string, message: string) => void;

/** A word as a warning shows it: short, so a client cannot fill the header with it. */
export const shownWord = (w: string): string => `'${w.length > 40 ? `${w.slice(0, 40)}…` : w}'`;

/**
 * `v` when it is one of `known`; else `nearest(v)` (noted as read so), else undefined (noted as
 * dropped). Only a non-string throws.
 */
export function openEnum<T extends string>(
  v: unknown,
  known: readonly T[],
  field: string,
  note: EnumNote,
  nearest?: (word: string) => T | undefined,
): T | undefined {
  const word = str(v, field);
  if ((known as readonly string[]).includes(word)) return word as T;
  const mapped = nearest?.(word);
  if (mapped !== undefined) {
    note(field, `${shownWord(word)} is newer than polygate; read as '${mapped}'`);
    return mapped;
  }
  note(field, `${shownWord(word)} is newer than polygate and has no translation; dropped`);
  return undefined;
}

/** A note that becomes a warning through ChatRequest.unmapped (adapters/shared/dropped-fields.ts recordDropped). */
export const noteInto =
  (dropped: DroppedField[]): EnumNote =>
  (field, message) =>
    dropped.push({ field, value: '', message });

/** The same for decoders that collect `Unmapped` notes themselves (Messages). */
export const noteUnmapped =
  (sink: (u: Unmapped) => void): EnumNote =>
  (field, message) =>
    sink({ field, message });

/**
 * The effort level an unknown effort word most likely means, read from the words effort scales
 * are made of (`ultra`, `xxhigh`, `lowest`, `auto`…); a word that says nothing about its level is
 * read as `medium`, the level every upstream defaults to. Never undefined: a client that asked
 * for reasoning keeps reasoning.
 */
export function nearestEffort(word: string): ReasoningEffort {
  const w = word.toLowerCase();
  if (/^(off|disabled?|no)$/.test(w)) return 'none';
  if (/max|ultra|extreme|highest|xxh|insane|deep/.test(w)) return 'max';
  if (/^(x|extra|very)[-_ ]?high/.test(w)) return 'xhigh';
  if (/high|hard|think/.test(w)) return 'high';
  if (/min|lowest|fast|quick/.test(w)) return 'minimal';
  if (/low|light/.test(w)) return 'low';
  return 'medium';
}

/** The image detail an unknown word most likely means (Responses' `original` asks for at least `high`); undefined when it says nothing. */
export function nearestDetail(word: string): 'low' | 'high' | undefined {
  if (/orig|full|high|max|ultra/i.test(word)) return 'high';
  if (/low|min|small/i.test(word)) return 'low';
  return undefined;
}
