// IR result -> Messages response object: blocks, stop reasons, usage with cache tokens split out.
import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import { caught } from './fixtures.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { ChatFinish, ChatResult, FinishReason } from '../../../src/ir/chat-result.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request: ChatRequest = chatRequest({ model: 'claude-client-name', messages: [] });
const result = (patch: Partial<ChatResult>): ChatResult => ({
  id: 'msg_01abc',
  model: 'upstream-model-x',
  parts: [{ type: 'text', text: 'hi' }],
  finish: { reason: 'stop', raw: 'stop' },
  usage: { inputTokens: 10, outputTokens: 3 },
  ...patch,
});
type Wire = {
  id: string;
  content: unknown[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: Record<string, number>;
  model: string;
};
const encode = (r: ChatResult): Wire => anthropicClientCodec.encodeResult(r, request) as Wire;

t.test('a text answer in the Messages shape, reporting the client model name', async (t) => {
  t.same(encode(result({})), {
    id: 'msg_01abc',
    type: 'message',
    role: 'assistant',
    model: 'claude-client-name',
    content: [{ type: 'text', text: 'hi' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 },
  });
});

t.test('ids without the msg_ prefix get one', async (t) => {
  t.equal(encode(result({ id: 'chatcmpl-123' })).id, 'msg_chatcmpl-123');
});

t.test('input_tokens excludes cache reads and writes (IR counts the whole prompt)', async (t) => {
  const u = encode(
    result({ usage: { inputTokens: 1500, outputTokens: 20, cacheReadTokens: 1000, cacheWriteTokens: 300 } }),
  ).usage;
  t.same(u, { input_tokens: 200, cache_creation_input_tokens: 300, cache_read_input_tokens: 1000, output_tokens: 20 });
});

t.test('every finish reason maps onto a stop_reason', async (t) => {
  const cases: Array<[FinishReason, string]> = [
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool-calls', 'tool_use'],
    ['stop-sequence', 'stop_sequence'],
    ['pause', 'pause_turn'],
    ['refusal', 'refusal'],
    ['content-filter', 'refusal'],
    ['other', 'end_turn'],
  ];
  for (const [reason, wire] of cases)
    t.equal(encode(result({ finish: { reason, raw: 'whatever' } })).stop_reason, wire, reason);
  // Messages has no failed stop reason: a failed answer (Gemini MALFORMED_FUNCTION_CALL) is an error, never end_turn.
  t.throws(() => encode(result({ finish: { reason: 'error', raw: 'MALFORMED_FUNCTION_CALL' } })), {
    kind: 'upstream',
    status: 502,
    message: /MALFORMED_FUNCTION_CALL/,
  });
  const exact: ChatFinish = { reason: 'length', raw: 'model_context_window_exceeded' };
  t.equal(
    encode(result({ finish: exact })).stop_reason,
    'model_context_window_exceeded',
    'an Anthropic raw word with the same meaning is kept',
  );
  const seq = encode(result({ finish: { reason: 'stop-sequence', raw: 'stop_sequence', stopSequence: '###' } }));
  t.same([seq.stop_reason, seq.stop_sequence], ['stop_sequence', '###']);
});

t.test('tool calls, reasoning, citations and the rest become blocks', async (t) => {
  const wire = encode(
    result({
      parts: [
        { type: 'reasoning', text: 'thinking...', signature: 'sig==', origin: 'anthropic-messages' },
        { type: 'reasoning', text: '', redacted: 'opaque', origin: 'anthropic-messages' },
        { type: 'reasoning', text: 'openai summary', encrypted: 'enc', origin: 'openai-responses' },
        { type: 'reasoning', text: '', encrypted: 'only-encrypted', origin: 'openai-responses' },
        {
          type: 'text',
          text: 'Paris is in France.',
          citations: [
            { kind: 'document', documentIndex: 0, title: 'Atlas', citedText: 'Paris, France', start: 3, end: 16 },
          ],
        },
        { type: 'text', text: '' },
        toolCall('call_1', 'get_weather', '{"city":"Paris","days":3}'),
        { type: 'refusal', text: 'I cannot help with that.' },
        { type: 'code', language: 'PYTHON', code: 'print(1)' },
        { type: 'code-result', outcome: 'ok', output: '1\n' },
        { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
      ],
      finish: { reason: 'tool-calls', raw: 'tool_calls' },
    }),
  );
  t.same(wire.content, [
    { type: 'thinking', thinking: 'thinking...', signature: 'sig==' },
    { type: 'redacted_thinking', data: 'opaque' },
    { type: 'thinking', thinking: 'openai summary', signature: '' },
    {
      type: 'text',
      text: 'Paris is in France.',
      citations: [
        {
          type: 'char_location',
          cited_text: 'Paris, France',
          document_index: 0,
          document_title: 'Atlas',
          start_char_index: 3,
          end_char_index: 16,
        },
      ],
    },
    { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: 3 } },
    { type: 'text', text: 'I cannot help with that.' },
    { type: 'text', text: '```python\nprint(1)\n```' },
    { type: 'text', text: '```\n1\n```' },
  ]);
  t.equal(wire.stop_reason, 'tool_use');
});

t.test('tool arguments that are not JSON are the upstream fault', async (t) => {
  t.match(
    caught(() => encode(result({ parts: [toolCall('c', 'f', '{"city":')] }))),
    { kind: 'upstream', status: 502 },
  );
  t.same(encode(result({ parts: [toolCall('c', 'f', '')] })).content, [
    { type: 'tool_use', id: 'c', name: 'f', input: {} },
  ]);
});

t.test('a text over the 5000000-character block limit is split into several blocks', async (t) => {
  const text = 'a'.repeat(5_000_000) + 'bc';
  const content = encode(result({ parts: [{ type: 'text', text }] })).content as Array<{ type: string; text: string }>;
  t.same(
    content.map((b) => [b.type, b.text.length]),
    [
      ['text', 5_000_000],
      ['text', 2],
    ],
  );
  t.equal(content.map((b) => b.text).join(''), text);
});
