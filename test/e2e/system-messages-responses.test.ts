// A Responses client (the official `openai` SDK) sends a `developer` message item after the
// conversation has begun, right after a function call's output, as Codex does when its
// permissions change mid-session. On every upstream it must land at that point of the conversation (README
// "role: system message inside messages"): a Responses upstream gets the body as sent (a stored
// request is relayed too, issue #29), so every item is where the client put it, a Chat upstream a `system` message after the `tool` message,
// Anthropic (no anthropic-beta from a Responses client) and Gemini the instruction folded in place
// into the next user turn, with a warning. `instructions` and a leading developer item stay the
// top-level system prompt everywhere; on a continued turn the leading developer item is the system
// prompt again (it is part of the stored conversation), `instructions` are not.
import t from 'tap';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import {
  folded,
  foldedTurns,
  modelFor,
  startSystemMessageUpstreams,
  type Upstream,
  warnsOfFold,
} from './system-messages-upstreams.ts';

const { emulators, client, lastSent, landedOn } = await startSystemMessageUpstreams(t);

const input: ResponseCreateParamsNonStreaming['input'] = [
  { role: 'developer', content: 'Lead.' },
  { role: 'user', content: 'hi' },
  { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'found' },
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Mid.' }] },
  { role: 'user', content: 'go' },
];
const tools: ResponseCreateParamsNonStreaming['tools'] = [
  {
    type: 'function',
    name: 'lookup',
    strict: false,
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  },
];

const expected: Record<Upstream, string[]> = {
  responses: [
    'instructions: Top.\n\nLead.',
    'user: hi',
    'function_call: call lookup',
    'function_call_output: result call_1',
    'developer: Mid.',
    'user: go',
  ],
  chat: ['system: Top.|Lead.', 'user: hi', 'assistant: call lookup', 'tool: result call_1', 'system: Mid.', 'user: go'],
  anthropic: ['system: Top.|Lead.', ...foldedTurns.anthropic],
  gemini: ['system: Top.|Lead.', ...foldedTurns.gemini],
};
const later: Record<Upstream, string> = {
  responses: 'developer: Later.',
  chat: 'system: Later.',
  anthropic: `user: ${folded('Later.')}`,
  gemini: `user: ${folded('Later.')}`,
};

for (const u of Object.keys(expected) as Upstream[]) {
  t.test(`${u} upstream: the mid-conversation developer item lands in place`, async (t) => {
    emulators[u].reset();
    const { data, response } = await client.responses
      .create({ model: modelFor(u), instructions: 'Top.', input, tools })
      .withResponse();
    t.equal(data.status, 'completed');
    if (u === 'responses') {
      const sent = lastSent(u);
      t.strictSame([sent.instructions, sent.input], ['Top.', input], 'relayed as sent: every item in place');
      emulators[u].reset();
      const more = [
        { role: 'developer', content: 'Later.' },
        { role: 'user', content: 'more' },
      ] as const;
      await client.responses.create({ model: modelFor(u), previous_response_id: data.id, input: [...more] });
      const next = lastSent(u);
      t.equal(next.previous_response_id, data.id, 'the upstream that stored the first turn resolves it');
      t.strictSame(next.input, more);
      return;
    }
    t.strictSame(landedOn(u), expected[u]);
    warnsOfFold(t, u, response.headers);

    // The next turn continues the stored conversation: `instructions` are not carried over, but
    // the first turn's leading developer item is a conversation item, so it is the system prompt
    // again; this turn's leading developer item follows the earlier turns, so it lands in place.
    emulators[u].reset();
    await client.responses.create({
      model: modelFor(u),
      previous_response_id: data.id,
      input: [
        { role: 'developer', content: 'Later.' },
        { role: 'user', content: 'more' },
      ],
    });
    const next = landedOn(u);
    t.equal(next[0], 'system: Lead.', "the first turn's developer item, without the first turn's instructions");
    t.strictSame(next.slice(1, 6), expected[u].slice(1), 'the stored turn, its instruction still in place');
    t.match(next[6], u === 'gemini' ? /^model: / : /^assistant: /, 'the stored answer');
    t.strictSame(next.slice(7), [later[u], 'user: more']);
  });
}

t.test('echo: the instruction is no part of the answer, and no error', async (t) => {
  const r = await client.responses.create({ model: 'echo', instructions: 'Top.', input, tools });
  t.equal(r.output_text, 'go');
});
