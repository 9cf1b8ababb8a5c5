import type { StreamTextFilter } from '../shared/chat-adapter.ts';
import { isObject } from '../shared/narrow.ts';

/**
 * The stream a Chat client that did not set `stream_options.include_usage` would have had, from
 * the one the relay asked usage for: the usage chunk (`choices: []` with a `usage` object) is
 * dropped, and the top-level `"usage":null` OpenAI then adds to every other chunk is cut out of
 * the chunk's text (the rest of its bytes stay as the upstream wrote them). Events are held until
 * their blank line, so each is judged whole.
 */
export function hideUsageChunks(): StreamTextFilter {
  let held = '';
  return {
    push(text) {
      held += text;
      const end = lastEventEnd(held);
      if (end < 0) return '';
      const complete = held.slice(0, end);
      held = held.slice(end);
      let out = '';
      for (let from = 0; from < complete.length;) {
        const to = eventEnd(complete, from);
        out += rewriteEvent(complete.slice(from, to));
        from = to;
      }
      return out;
    },
    end() {
      const rest = held;
      held = '';
      return rest;
    },
  };
}

/** Where the event starting at `from` ends, after its blank line (LF or CRLF line ends); the text's end if none. */
function eventEnd(s: string, from: number): number {
  const lf = s.indexOf('\n\n', from);
  const crlf = s.indexOf('\n\r\n', from);
  const ends = [lf < 0 ? Infinity : lf + 2, crlf < 0 ? Infinity : crlf + 3];
  const end = Math.min(...ends);
  return end === Infinity ? s.length : end;
}

/** Where the last complete event in `s` ends (after its blank line), or -1. */
function lastEventEnd(s: string): number {
  const lf = s.lastIndexOf('\n\n');
  const crlf = s.lastIndexOf('\n\r\n');
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 3);
}

const usageNull = '"usage":null';

/** OpenAI's chunk once usage is asked for: `usage` its last member, `null`. */
const lastNull = /,"usage":null\}(\r?\n\r?\n)$/;

function rewriteEvent(event: string): string {
  if (!event.includes('"usage"')) return event;
  // The common case without a parse: the data line's last `}` closes the chunk, so a member just
  // before it is the chunk's own (inside a string a quote would be escaped).
  if (event.startsWith('data: {') && lastNull.test(event)) return event.replace(lastNull, '}$1');
  const line = /^data: ?(\{.*\})\r?$/m.exec(event);
  if (!line) return event;
  let chunk: unknown;
  try {
    chunk = JSON.parse(line[1]);
  } catch {
    return event;
  }
  if (!isObject(chunk) || !('usage' in chunk)) return event;
  if (isObject(chunk.usage) && Array.isArray(chunk.choices) && chunk.choices.length === 0) return '';
  if (chunk.usage !== null) return event;
  // The top-level key is the chunk's last but for fields added after it; a nested `usage: null`
  // would come before it, inside `choices`.
  const at = event.lastIndexOf(usageNull);
  const before = event[at - 1] === ',';
  const after = event[at + usageNull.length] === ',';
  const from = before ? at - 1 : at;
  const to = at + usageNull.length + (!before && after ? 1 : 0);
  return event.slice(0, from) + event.slice(to);
}
