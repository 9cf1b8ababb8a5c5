// The relay tests' check that one Anthropic SDK call through the gateway came back whole, written
// once: non-streamed, a Message; streamed, events up to message_stop (an SSE stream cut short or a
// reset connection ends earlier, or throws).
import type Anthropic from '@anthropic-ai/sdk';
import type { Test } from 'tap';
import { userSays } from './post-messages.ts';

/** One `messages.create` of `model` with the user's `content`, streamed or not, asserted to complete; `what` names it. */
export async function messagesComplete(
  t: Test,
  client: Anthropic,
  call: { model: string; content: string; stream: boolean },
  what: string,
): Promise<void> {
  const params = { model: call.model, max_tokens: 16, messages: userSays(call.content) };
  if (call.stream) {
    const events: string[] = [];
    for await (const ev of await client.messages.create({ ...params, stream: true })) events.push(ev.type);
    t.equal(events.at(-1), 'message_stop', `${what}: the stream completes`);
  } else {
    const msg = await client.messages.create(params);
    t.equal(msg.type, 'message', `${what}: answers a Message`);
  }
}
