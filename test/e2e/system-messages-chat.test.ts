// A Chat Completions client (the official `openai` SDK) sends a `developer` message after the
// conversation has begun, right after a tool result, as agent frameworks do when a mode changes.
// On every upstream it must land at that point of the conversation (README "role: system message
// inside messages"): a Chat upstream gets the body as sent, a Responses upstream a `developer`
// item in place, Anthropic (no anthropic-beta from a Chat client) and Gemini the instruction
// folded in place into the next user turn, with a warning. A leading system message stays the
// top-level system prompt everywhere.
import t from 'tap';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { chatToolRound } from '../adapters/openai-chat/fixtures.ts';
import {
  foldedTurns,
  modelFor,
  startSystemMessageUpstreams,
  type Upstream,
  warnsOfFold,
} from './system-messages-upstreams.ts';

const { emulators, client, landedOn } = await startSystemMessageUpstreams(t);

const messages: ChatCompletionCreateParamsNonStreaming['messages'] = [
  { role: 'system', content: 'Lead.' },
  { role: 'user', content: 'hi' },
  ...chatToolRound('call_1', 'lookup', '{"q":"x"}', 'found'),
  { role: 'developer', content: 'Mid.' },
  { role: 'user', content: 'go' },
];
const tools: ChatCompletionCreateParamsNonStreaming['tools'] = [
  {
    type: 'function',
    function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  },
];

const expected: Record<Upstream, string[]> = {
  // Relayed: the body as the client sent it.
  chat: ['system: Lead.', 'user: hi', 'assistant: call lookup', 'tool: result call_1', 'developer: Mid.', 'user: go'],
  responses: [
    'instructions: Lead.',
    'user: hi',
    'function_call: call lookup',
    'function_call_output: result call_1',
    'developer: Mid.',
    'user: go',
  ],
  anthropic: ['system: Lead.', ...foldedTurns.anthropic],
  gemini: ['system: Lead.', ...foldedTurns.gemini],
};
const plainExpected: Record<Upstream, string[]> = {
  chat: ['system: Lead.', 'developer: Also.', 'user: hi'],
  responses: ['instructions: Lead.\n\nAlso.', 'user: hi'],
  anthropic: ['system: Lead.|Also.', 'user: hi'],
  gemini: ['system: Lead.|Also.', 'user: hi'],
};

for (const u of Object.keys(expected) as Upstream[]) {
  t.test(`${u} upstream: the mid-conversation developer message lands in place`, async (t) => {
    emulators[u].reset();
    const { data, response } = await client.chat.completions
      .create({ model: modelFor(u), messages, tools })
      .withResponse();
    t.equal(data.choices[0]?.finish_reason, 'stop');
    t.strictSame(landedOn(u), expected[u]);
    warnsOfFold(t, u, response.headers);

    // An ordinary request (instructions only at the start) is unchanged: the top-level system prompt, no warning.
    emulators[u].reset();
    const plain = await client.chat.completions
      .create({ model: modelFor(u), messages: [messages[0]!, { role: 'developer', content: 'Also.' }, messages[1]!] })
      .withResponse();
    t.strictSame(landedOn(u), plainExpected[u]);
    t.notMatch(plain.response.headers.get('x-polygate-warnings') ?? '', /system/);
  });
}

t.test('echo: the instruction is no part of the answer, and no error', async (t) => {
  const r = await client.chat.completions.create({ model: 'echo', messages, tools });
  t.equal(r.choices[0]?.message.content, 'go');
});
