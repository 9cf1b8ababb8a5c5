// The relay's usage tap reads every frame it passes on (src/families/chat/relay-usage-tap.ts); nearly
// all of a stream's frames are the same text chunk with other words in it. Those are read here
// without JSON.parse (issue #28: the parse was half of the tap's CPU), and, when a chunk of bytes
// holds nothing but such frames, without decoding the chunk or parsing its SSE lines either, with
// the result the decoder itself would give, which the decoder vouches for (`repeatsTextFrames`).
import { isUtf8 } from 'node:buffer';
import type { UpstreamStreamDecoder } from '../../../adapters/shared/chat-adapter.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';

type TextDelta = Extract<StreamEvent, { type: 'text-delta' }>;
type Frame = { event?: string; data: string };
/** The text frame the decoder read last: its data before and after the text, and the text's part. */
type Template = { event: string | undefined; head: string; tail: string; index: number };
/** The template as its frame is framed on the wire (`event: …\ndata: …\n\n`), around the text's bytes. */
type Wire = { before: Buffer; after: Buffer };

/** What only an escaped JSON string holds; a frame's text between plain quotes has none of it. */
const notPlain = /["\\\u0000-\u001f]/;
const quote = 0x22;

/**
 * A decoder, with each frame that repeats the last decoded one but for its text read without the
 * decoder. The last frame the decoder read is the template when it decoded to exactly one
 * text-delta, holds no backslash (so every quote in it delimits a string and every string is
 * spelled as it reads) and spells its text, in quotes, exactly once: that spelling is the text
 * member. A frame with the same event name, the same characters before and after that spot, and a
 * plain text in it then parses to the same value but for that text, so the decoder
 * (`repeatsTextFrames`) would return the same text-delta with the new text and stay as it was.
 * Any other frame goes to the decoder and ends the template (its state may have moved).
 */
export class TextFrames implements UpstreamStreamDecoder {
  readonly #decoder: UpstreamStreamDecoder;
  #template: Template | undefined;
  #wire: Wire | null | undefined;

  constructor(decoder: UpstreamStreamDecoder) {
    this.#decoder = decoder;
  }

  push(frame: Frame): StreamEvent[] {
    const data = frame.data;
    const t = this.#template;
    if (
      t !== undefined &&
      frame.event === t.event &&
      data.length > t.head.length + t.tail.length &&
      // Compared as slices: V8's startsWith walks the characters one by one (0.7 µs for a Chat
      // chunk's head, most of a JSON.parse), a slice's equality compares memory.
      data.slice(0, t.head.length) === t.head &&
      data.slice(data.length - t.tail.length) === t.tail
    ) {
      const text = data.slice(t.head.length, data.length - t.tail.length);
      if (!notPlain.test(text)) return [{ type: 'text-delta', index: t.index, text }];
    }
    const events = this.#decoder.push(frame);
    this.#template = events.length === 1 && events[0].type === 'text-delta' ? learn(frame, events[0]) : undefined;
    this.#wire = undefined;
    return events;
  }

  end(): StreamEvent[] {
    return this.#decoder.end();
  }

  /**
   * Reads `chunk` from its start as whole template frames, in their usual framing (`event: name`
   * if named, one `data: ` line, a blank line; text as valid UTF-8), giving each one's text-delta
   * to `onEvent`; returns where it stopped: the rest is for the SSE parser. Only for a parser that
   * has nothing pending (the bytes before ended with a blank line), which these frames leave so.
   */
  readWire(chunk: Buffer, onEvent: (e: StreamEvent) => void): number {
    const wire = this.#wireTemplate();
    if (!wire || this.#template === undefined) return 0;
    const { before, after } = wire;
    const { index } = this.#template;
    let at = 0;
    while (chunk.length - at > before.length + after.length) {
      const start = at + before.length;
      if (!same(before, chunk, at)) break;
      // The text ends at its first quote: a quote inside it would be escaped, which is not plain.
      let end = start;
      let ascii = true;
      for (; end < chunk.length && chunk[end] !== quote; end++) if (chunk[end] > 0x7f) ascii = false;
      if (end === start || end + after.length > chunk.length || !same(after, chunk, end)) break;
      if (!ascii && !isUtf8(chunk.subarray(start, end))) break;
      const text = ascii ? chunk.toString('latin1', start, end) : chunk.toString('utf8', start, end);
      if (notPlain.test(text)) break;
      onEvent({ type: 'text-delta', index, text });
      at = end + after.length;
    }
    return at;
  }

  /** The template's wire bytes, or null when its data has a line break (it came in several data lines). */
  #wireTemplate(): Wire | null {
    if (this.#wire !== undefined) return this.#wire;
    const t = this.#template;
    if (!t || /[\r\n]/.test(t.head + t.tail)) return (this.#wire = null);
    const name = t.event === undefined ? '' : `event: ${t.event}\n`;
    return (this.#wire = { before: Buffer.from(`${name}data: ${t.head}`), after: Buffer.from(`${t.tail}\n\n`) });
  }
}

/** Whether `chunk` holds `bytes` at `at` (a loop: the few bytes of a frame cost less than a call into Buffer.compare). */
function same(bytes: Buffer, chunk: Buffer, at: number): boolean {
  if (bytes.length > 96) return bytes.compare(chunk, at, at + bytes.length) === 0;
  for (let i = 0; i < bytes.length; i++) if (chunk[at + i] !== bytes[i]) return false;
  return true;
}

/** `decoder` read through TextFrames when it vouches for its text frames, else as it is. */
export function textFrameShortcut(decoder: UpstreamStreamDecoder): UpstreamStreamDecoder {
  return decoder.repeatsTextFrames === true ? new TextFrames(decoder) : decoder;
}

function learn(frame: Frame, delta: TextDelta): Template | undefined {
  const { data } = frame;
  if (delta.text === '' || data.includes('\\')) return undefined;
  const spelled = `"${delta.text}"`;
  const at = data.indexOf(spelled);
  if (at === -1 || data.indexOf(spelled, at + 1) !== -1) return undefined;
  return {
    event: frame.event,
    head: data.slice(0, at + 1),
    tail: data.slice(at + spelled.length - 1),
    index: delta.index,
  };
}
