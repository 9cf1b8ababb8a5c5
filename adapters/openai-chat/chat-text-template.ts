// Most chunks of a Chat Completions stream are the same text but for their content:
// `{"id":…,"choices":[{"index":0,"delta":{"content":"<text>"},"logprobs":null,"finish_reason":null}]…}`.
// Once a plain text chunk has been parsed whole, the text around its content string is kept; a
// later chunk that is that text around one JSON string is read by parsing the string alone, with
// no object, array or other string made for the rest (issue #28: JSON.parse of each chunk was a
// third of polygate's own CPU per chunk).
//
// Why it is exact: swapping one JSON string token for another in a JSON text gives a JSON text
// that parses to the same values but at that token's place. The token is checked to be the one
// the decoder reads as the delta's content (a probe string parsed in its place must come out
// there: not a duplicate key that a later one overrides, not another choice's), and the chunk it
// came from to be one the decoder reads nothing else from. So for a matching chunk the decoder
// does exactly what it did for that one, with the new text.
import { firstAtIndexZero, isObject } from '../shared/narrow.ts';
import { parseFrameJson } from '../shared/frame-json.ts';

/** Templates made in a stream that no chunk matched, past which no more are made (chunks that differ beyond their text). */
const maxMisses = 3;

export class ChatTextTemplate {
  #head = '';
  #tail = '';
  #made = 0;
  #hits = 0;

  /** The content of a chunk that is the template around one JSON string; undefined: parse it whole. */
  match(data: string): string | undefined {
    const head = this.#head;
    const tail = this.#tail;
    if (head === '' || data.length <= head.length + tail.length || !data.startsWith(head) || !data.endsWith(tail))
      return undefined;
    const v = parseFrameJson(data.slice(head.length, data.length - tail.length));
    if (typeof v !== 'string') return undefined;
    this.#hits++;
    return v;
  }

  /**
   * `data` parsed whole to a chunk from which the decoder read only `content` (a string, the
   * delta's): keeps the text around it, unless it is the one in use or too many went unused.
   */
  learn(data: string, content: string): void {
    if (this.#made - this.#hits >= maxMisses) return;
    const key = data.lastIndexOf('"content":');
    if (key < 0) return;
    let start = key + 10;
    while (start < data.length && isJsonSpace(data.charCodeAt(start))) start++;
    if (data.charCodeAt(start) !== 34) return;
    let end = start + 1;
    while (end < data.length && data.charCodeAt(end) !== 34) end += data.charCodeAt(end) === 92 ? 2 : 1;
    if (end >= data.length) return;
    const head = data.slice(0, start);
    const tail = data.slice(end + 1);
    if (head === this.#head && tail === this.#tail) return;
    this.#made++;
    const probe = content === 'p' ? 'q' : 'p';
    const parsed = parseFrameJson(`${head}"${probe}"${tail}`);
    const choice = isObject(parsed) ? firstAtIndexZero(parsed.choices) : undefined;
    const delta = choice !== undefined && isObject(choice.delta) ? choice.delta : undefined;
    if (delta?.content !== probe) return;
    this.#head = head;
    this.#tail = tail;
  }
}

const isJsonSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;
