// The relay's usage tap reads every frame it passes on (src/families/chat/relay-usage-tap.ts); nearly
// all of a stream's frames are the same text chunk with other words in it. Those are read here
// without JSON.parse (issue #28: the parse was half of the tap's CPU), with the result the decoder
// itself would give, which the decoder vouches for (`repeatsTextFrames`).
import type { UpstreamStreamDecoder } from '../../../adapters/shared/chat-adapter.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';

type TextDelta = Extract<StreamEvent, { type: 'text-delta' }>;

/** What only an escaped JSON string holds; a frame's text between plain quotes has none of it. */
const notPlain = /["\\\u0000-\u001f]/;

/**
 * `decoder`, with each frame that repeats the last decoded one but for its text read without the
 * decoder. The last frame the decoder read is the template when it decoded to exactly one
 * text-delta, holds no backslash (so every quote in it delimits a string and every string is
 * spelled as it reads) and spells its text, in quotes, exactly once: that spelling is the text
 * member. A frame with the same event name, the same bytes before and after that spot, and a
 * plain text in it then parses to the same value but for that text, so the decoder
 * (`repeatsTextFrames`) would return the same text-delta with the new text and stay as it was.
 * Any other frame goes to the decoder and ends the template (its state may have moved).
 */
export function textFrameShortcut(decoder: UpstreamStreamDecoder): UpstreamStreamDecoder {
  if (decoder.repeatsTextFrames !== true) return decoder;
  let template: { event: string | undefined; head: string; tail: string; index: number } | undefined;
  return {
    push: (frame) => {
      const data = frame.data;
      if (
        template !== undefined &&
        frame.event === template.event &&
        data.length > template.head.length + template.tail.length &&
        // Compared as slices: V8's startsWith walks the characters one by one (0.7 µs for a Chat
        // chunk's head, most of a JSON.parse), a slice's equality compares memory.
        data.slice(0, template.head.length) === template.head &&
        data.slice(data.length - template.tail.length) === template.tail
      ) {
        const text = data.slice(template.head.length, data.length - template.tail.length);
        if (!notPlain.test(text)) return [{ type: 'text-delta', index: template.index, text }];
      }
      const events = decoder.push(frame);
      template = events.length === 1 && events[0].type === 'text-delta' ? learn(frame, events[0]) : undefined;
      return events;
    },
    end: () => decoder.end(),
  };
}

function learn(
  frame: { event?: string; data: string },
  delta: TextDelta,
): { event: string | undefined; head: string; tail: string; index: number } | undefined {
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
