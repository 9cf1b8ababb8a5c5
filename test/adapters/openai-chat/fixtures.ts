// Golden fixtures of the openai-chat format (test/fixtures/openai-chat/<case>.*) and the framing
// polygate's SSE writer uses, so stream tests compare the exact bytes a client receives.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { fixtureFiles } from '../../helpers/fixture-files.ts';

const files = fixtureFiles('openai-chat');
export const fixtureJson = files.json;
export const fixtureText = files.text;

/** One upstream SSE event per line: each line is the `data:` payload. */
export const fixtureChunks = (name: string): Array<{ data: string }> =>
  fixtureText(name)
    .split('\n')
    .filter((l) => l !== '')
    .map((data) => ({ data }));

/** A non-streamed completion of one choice: `message` over an assistant message with no refusal and no annotations. */
export const chatCompletion = (
  message: Record<string, unknown>,
  finish_reason: string | null = 'stop',
  usage: unknown = undefined,
): Record<string, unknown> => ({
  id: 'chatcmpl-123',
  object: 'chat.completion',
  created: 1735689600,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', refusal: null, annotations: [], ...message },
      logprobs: null,
      finish_reason,
    },
  ],
  ...(usage === undefined ? {} : { usage }),
});

/** A Chat request's tool round trip: the assistant's one call `id` to `name(args)`, then its tool result. */
export const chatToolRound = (id: string, name: string, args: string, result: string): ChatCompletionMessageParam[] => [
  { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
  { role: 'tool', tool_call_id: id, content: result },
];

export { sseText, warnings } from '../../helpers/fixture-files.ts';
