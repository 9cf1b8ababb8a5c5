// Most chunks of a Chat Completions stream are the same text but for their content:
// `{"id":…,"choices":[{"index":0,"delta":{"content":"<text>"},"logprobs":null,"finish_reason":null}]…}`.
// Those are read by parsing the content string alone (adapters/shared/text-template.ts, which says
// why that is exact); the decoder learns the template from a chunk it read nothing else from.
import { firstAtIndexZero, isObject } from '../shared/narrow.ts';
import { TextTemplate } from '../shared/text-template.ts';

/** The delta content the decoder reads of a parsed chunk: the first choice at index 0's. */
function contentOf(parsed: unknown): unknown {
  const choice = isObject(parsed) ? firstAtIndexZero(parsed.choices) : undefined;
  const delta = choice !== undefined && isObject(choice.delta) ? choice.delta : undefined;
  return delta?.content;
}

export class ChatTextTemplate extends TextTemplate {
  constructor() {
    super('content', contentOf);
  }
}
