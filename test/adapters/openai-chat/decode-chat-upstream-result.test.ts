import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import { openaiChatUpstreamCodec as codec } from '../../../adapters/openai-chat/index.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { chatCompletion as completion } from './fixtures.ts';

t.test('text answer with usage details', async (t) => {
  const r = codec.decodeResult(
    completion({ content: 'Hello!' }, 'stop', {
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 256, audio_tokens: 0 },
    }),
  );
  t.strictSame(r, {
    id: 'chatcmpl-123',
    model: 'gpt-4.1-2025-04-14',
    parts: [{ type: 'text', text: 'Hello!' }],
    finish: { reason: 'stop', raw: 'stop' },
    usage: { inputTokens: 1200, outputTokens: 300, reasoningTokens: 256, cacheReadTokens: 1024 },
  });
});

t.test('tool calls keep their arguments byte for byte; content null gives no text part', async (t) => {
  const args = '{ "city" :"Paris",\n  "days": 3 }';
  const r = codec.decodeResult(
    completion(
      {
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: args } },
          { id: 'call_2', type: 'function', function: { name: 'noop', arguments: '' } },
        ],
      },
      'tool_calls',
    ),
  );
  t.strictSame(r.parts, [
    { type: 'tool-call', id: 'call_1', name: 'get_weather', args },
    toolCall('call_2', 'noop', ''),
  ]);
  t.strictSame(r.finish, { reason: 'tool-calls', raw: 'tool_calls' });
  t.strictSame(r.usage, { inputTokens: 0, outputTokens: 0 }, 'missing usage is zero, not an error');
});

t.test('finish reasons map with the raw word kept', async (t) => {
  const cases: Array<[string | null, string]> = [
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool-calls'],
    ['function_call', 'tool-calls'],
    ['content_filter', 'content-filter'],
    ['eos', 'other'],
  ];
  for (const [raw, reason] of cases) {
    const r = codec.decodeResult(completion({ content: 'x' }, raw));
    t.strictSame(r.finish, { reason, raw: raw ?? '' }, String(raw));
  }
});

t.test('reasoning_content / reasoning from compatible servers becomes a reasoning part, first', async (t) => {
  const a = codec.decodeResult(completion({ content: 'Answer.', reasoning_content: 'Thinking…' }));
  t.strictSame(a.parts, [
    { type: 'reasoning', text: 'Thinking…', origin: 'openai-chat' },
    { type: 'text', text: 'Answer.' },
  ]);
  const b = codec.decodeResult(completion({ content: 'Answer.', reasoning: 'Also thinking.' }));
  t.strictSame(b.parts[0], { type: 'reasoning', text: 'Also thinking.', origin: 'openai-chat' });
});

t.test('refusal and url citations', async (t) => {
  const r = codec.decodeResult(completion({ content: null, refusal: "I can't help with that." }));
  t.strictSame(r.parts, [{ type: 'refusal', text: "I can't help with that." }]);
  const c = codec.decodeResult(
    completion({
      content: 'See example.',
      annotations: [
        {
          type: 'url_citation',
          url_citation: { url: 'https://example.com', title: 'Ex', start_index: 4, end_index: 11 },
        },
      ],
    }),
  );
  t.strictSame(c.parts, [
    {
      type: 'text',
      text: 'See example.',
      citations: [{ kind: 'url', url: 'https://example.com', title: 'Ex', start: 4, end: 11 }],
    },
  ]);
});

t.test("a malformed body is the upstream's fault (502), not the client's", async (t) => {
  for (const body of [
    { choices: [] },
    { choices: [{ message: { content: 5 } }] },
    'nope',
    { choices: [{ message: { tool_calls: [{ function: { name: 'x' } }] } }] },
  ]) {
    const err = (() => {
      try {
        codec.decodeResult(body);
      } catch (e) {
        return e;
      }
    })();
    t.type(err, GatewayError);
    t.equal((err as GatewayError).kind, 'upstream', JSON.stringify(body));
    t.equal((err as GatewayError).status, 502);
  }
});

t.test('a 200 carrying an error body is an error', async (t) => {
  t.throws(() => codec.decodeResult({ error: { message: 'model overloaded', type: 'server_error' } }), {
    kind: 'upstream',
    message: /model overloaded/,
  });
});
