// Most frames of a model's stream are the same text but for their text string: a Chat chunk's
// `delta.content`, a Messages `content_block_delta`'s `delta.text`. Once a plain text frame has
// been parsed whole, the text around its string is kept; a later frame that is that text around
// one JSON string is read by parsing the string alone, with no object, array or other string made
// for the rest (issue #28: JSON.parse of each frame was a third of polygate's own CPU per chunk).
//
// Why it is exact: swapping one JSON string token for another in a JSON text gives a JSON text
// that parses to the same values but at that token's place. The token is checked to be the one
// the decoder reads as the text (a probe string parsed in its place must come out there: not a
// duplicate key that a later one overrides, not another choice's), and the frame it came from to
// be one the decoder reads nothing else from (the decoder's call). So for a matching frame the
// decoder does exactly what it did for that one, with the new text.
import { parseFrameJson } from './frame-json.ts';

/** Templates made in a stream that no frame matched, past which no more are made (frames that differ beyond their text). */
const maxMisses = 3;

export class TextTemplate {
  /** `"name":`, the member whose string is the text. */
  readonly #member: string;
  /** The text a frame parsed whole gives to the decoder (undefined: none). */
  readonly #textOf: (parsed: unknown) => unknown;
  #head = '';
  #tail = '';
  #made = 0;
  #hits = 0;

  constructor(member: string, textOf: (parsed: unknown) => unknown) {
    this.#member = `"${member}":`;
    this.#textOf = textOf;
  }

  /** The text of a frame that is the template around one JSON string; undefined: parse it whole. */
  match(data: string): string | undefined {
    const head = this.#head;
    const tail = this.#tail;
    // The head compared as a slice: V8's startsWith walks the characters one by one (0.7 µs for a
    // Chat chunk's 240-character head, nearly a JSON.parse of it), a slice's equality compares
    // memory. The tail searched for where it must start: as fast, without a slice (issue #28).
    if (
      head === '' ||
      data.length <= head.length + tail.length ||
      data.slice(0, head.length) !== head ||
      data.indexOf(tail, data.length - tail.length) === -1
    )
      return undefined;
    const v = parseFrameJson(data.slice(head.length, data.length - tail.length));
    if (typeof v !== 'string') return undefined;
    this.#hits++;
    return v;
  }

  /**
   * `data` parsed whole to a frame from which the decoder read only `text` (the member's string):
   * keeps the text around it, unless it is the one in use or too many went unused. True when the
   * template in use is this frame's.
   */
  learn(data: string, text: string): boolean {
    const key = data.lastIndexOf(this.#member);
    if (key < 0) return false;
    let start = key + this.#member.length;
    while (start < data.length && isJsonSpace(data.charCodeAt(start))) start++;
    if (data.charCodeAt(start) !== 34) return false;
    let end = start + 1;
    while (end < data.length && data.charCodeAt(end) !== 34) end += data.charCodeAt(end) === 92 ? 2 : 1;
    if (end >= data.length) return false;
    const head = data.slice(0, start);
    const tail = data.slice(end + 1);
    if (head === this.#head && tail === this.#tail) return true;
    if (this.#made - this.#hits >= maxMisses) return false;
    this.#made++;
    const probe = text === 'p' ? 'q' : 'p';
    if (this.#textOf(parseFrameJson(`${head}"${probe}"${tail}`)) !== probe) return false;
    this.#head = head;
    this.#tail = tail;
    return true;
  }
}

const isJsonSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;
