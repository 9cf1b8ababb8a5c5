// Tool arguments and tool results travel as JSON *texts* inside a request or an upstream answer,
// so no parse-time depth limit on the body sees their nesting. An encoder that parses one into an
// object for its wire format (Messages `input`, Gemini `args` / `response`) builds a body that
// JSON.stringify must recurse through: a 20 kB text of 10,000 brackets overflowed the stack.

/** Deeper than any real tool payload, far below where serializing it recurses out of stack. */
export const maxJsonTextDepth = 256;

/** Does `text` nest arrays and objects deeper than `limit`? A linear scan, no parse; strings are skipped. */
export function jsonTextTooDeep(text: string, limit = maxJsonTextDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
