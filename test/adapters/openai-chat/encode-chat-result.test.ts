import t from 'tap';
import { openaiChatClientCodec as codec } from '../../../adapters/openai-chat/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request: ChatRequest = chatRequest({ model: 'my-alias', messages: [] });
const result = (over: Partial<ChatResult>): ChatResult => ({
  id: 'msg_01ABC',
  model: 'claude-sonnet-4-5',
  parts: [],
  finish: { reason: 'stop', raw: 'end_turn' },
  usage: { inputTokens: 100, outputTokens: 20 },
  ...over,
});
type Completion = {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; message: Record<string, unknown>; logprobs: null; finish_reason: string }>;
  usage: Record<string, unknown>;
};
const encode = (r: ChatResult): Completion => codec.encodeResult(r, request) as Completion;

t.test('a text answer: chat.completion shape, client model name, chatcmpl id, full usage', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const c = encode(
    result({
      parts: [
        { type: 'text', text: 'Hello' },
        { type: 'text', text: ' world' },
      ],
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 64, reasoningTokens: 5 },
    }),
  );
  t.equal(c.id, 'chatcmpl-msg_01ABC');
  t.equal(c.object, 'chat.completion');
  t.ok(c.created >= before && c.created <= before + 2, 'created is now, in seconds');
  t.equal(c.model, 'my-alias', 'the client-facing model name');
  t.strictSame(c.choices, [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello world', refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ]);
  t.strictSame(c.usage, {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 64 },
    completion_tokens_details: { reasoning_tokens: 5 },
  });
});

t.test('reasoning never leaks into content', async (t) => {
  const c = encode(
    result({
      parts: [
        { type: 'reasoning', text: 'secret chain of thought', signature: 's', origin: 'anthropic-messages' },
        { type: 'text', text: 'Answer.' },
      ],
    }),
  );
  t.equal(c.choices[0].message.content, 'Answer.');
  t.notOk(JSON.stringify(c).includes('secret chain of thought'));
});

t.test('tool calls only: content null, arguments byte for byte, finish tool_calls', async (t) => {
  const args = '{"city": "Paris",  "days":3}';
  const c = encode(
    result({
      parts: [{ type: 'tool-call', id: 'toolu_1', name: 'get_weather', args }],
      finish: { reason: 'tool-calls', raw: 'tool_use' },
    }),
  );
  t.strictSame(c.choices[0].message, {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: args } }],
    annotations: [],
  });
  t.equal(c.choices[0].finish_reason, 'tool_calls');
});

t.test("finish reasons: other formats' words mapped, Chat Completions words kept", async (t) => {
  const cases: Array<[ChatResult['finish'], string]> = [
    [{ reason: 'length', raw: 'max_tokens' }, 'length'],
    [{ reason: 'stop-sequence', raw: 'stop_sequence' }, 'stop'],
    [{ reason: 'content-filter', raw: 'SAFETY' }, 'content_filter'],
    // Anthropic's `refusal` stop reason is its safety classifiers ending the answer.
    [{ reason: 'refusal', raw: 'refusal' }, 'content_filter'],
    [{ reason: 'other', raw: 'function_call' }, 'function_call'],
  ];
  for (const [finish, want] of cases)
    t.equal(
      encode(result({ parts: [{ type: 'text', text: 'x' }], finish })).choices[0].finish_reason,
      want,
      finish.raw,
    );
  t.throws(
    () => encode(result({ parts: [], finish: { reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' } })),
    { kind: 'upstream', status: 502, message: /MALFORMED_FUNCTION_CALL/ },
    'a failed answer is an error, never a plain stop',
  );
});

t.test('refusal goes to message.refusal, content null', async (t) => {
  const c = encode(result({ parts: [{ type: 'refusal', text: 'I cannot do that.' }] }));
  t.equal(c.choices[0].message.content, null);
  t.equal(c.choices[0].message.refusal, 'I cannot do that.');
});

t.test('url citations become url_citation annotations with offsets in the joined content', async (t) => {
  const c = encode(
    result({
      parts: [
        { type: 'text', text: 'Intro. ' },
        {
          type: 'text',
          text: 'Fact here.',
          citations: [
            { kind: 'url', url: 'https://ex.com', title: 'Ex', start: 0, end: 4 },
            { kind: 'document', documentIndex: 0 },
          ],
        },
      ],
    }),
  );
  t.strictSame(c.choices[0].message.annotations, [
    { type: 'url_citation', url_citation: { url: 'https://ex.com', title: 'Ex', start_index: 7, end_index: 11 } },
  ]);
});
