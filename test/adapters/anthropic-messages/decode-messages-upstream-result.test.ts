// Upstream Message JSON -> IR result.
import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import { anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import { caught } from './fixtures.ts';

const message = (patch: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Hi!' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 12,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 6,
    service_tier: 'standard',
  },
  ...patch,
});

t.test('a text message', async (t) => {
  t.same(anthropicUpstreamCodec.decodeResult(message()), {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    model: 'claude-sonnet-4-5-20250929',
    parts: [{ type: 'text', text: 'Hi!' }],
    finish: { reason: 'stop', raw: 'end_turn', stopSequence: null },
    usage: { inputTokens: 12, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

t.test('every block kind, citations, and total input including cache', async (t) => {
  const r = anthropicUpstreamCodec.decodeResult(
    message({
      content: [
        { type: 'thinking', thinking: 'Let me see.', signature: 'sig/+==' },
        { type: 'redacted_thinking', data: 'opaque' },
        {
          type: 'text',
          text: 'Paris.',
          citations: [
            {
              type: 'char_location',
              cited_text: 'Paris is the capital',
              document_index: 0,
              document_title: 'Atlas',
              start_char_index: 0,
              end_char_index: 20,
            },
            {
              type: 'web_search_result_location',
              cited_text: 'x',
              url: 'https://example.com',
              title: 'Example',
              encrypted_index: 'enc',
            },
            {
              type: 'page_location',
              cited_text: 'p',
              document_index: 1,
              document_title: null,
              start_page_number: 2,
              end_page_number: 3,
            },
          ],
        },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', n: [1, 2] } },
      ],
      stop_reason: 'tool_use',
      usage: {
        input_tokens: 50,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 1000,
        output_tokens: 80,
        output_tokens_details: { thinking_tokens: 30 },
      },
    }),
  );
  t.same(r.parts, [
    { type: 'reasoning', text: 'Let me see.', signature: 'sig/+==', origin: 'anthropic-messages' },
    { type: 'reasoning', text: '', redacted: 'opaque', origin: 'anthropic-messages' },
    {
      type: 'text',
      text: 'Paris.',
      citations: [
        { kind: 'document', documentIndex: 0, title: 'Atlas', citedText: 'Paris is the capital', start: 0, end: 20 },
        { kind: 'url', url: 'https://example.com', title: 'Example' },
        { kind: 'document', documentIndex: 1, citedText: 'p', start: 2, end: 3 },
      ],
    },
    toolCall('toolu_1', 'get_weather', '{"city":"Paris","n":[1,2]}'),
  ]);
  t.same(r.finish, { reason: 'tool-calls', raw: 'tool_use', stopSequence: null });
  t.same(r.usage, {
    inputTokens: 1250,
    outputTokens: 80,
    cacheReadTokens: 1000,
    cacheWriteTokens: 200,
    reasoningTokens: 30,
  });
});

t.test('stop reasons map onto IR finish reasons, unknown ones to other', async (t) => {
  const cases: Array<[string, string]> = [
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop-sequence'],
    ['pause_turn', 'pause'],
    ['refusal', 'refusal'],
    ['model_context_window_exceeded', 'length'],
    ['something_new', 'other'],
  ];
  for (const [raw, reason] of cases)
    t.same(anthropicUpstreamCodec.decodeResult(message({ stop_reason: raw })).finish.reason, reason, raw);
  t.same(anthropicUpstreamCodec.decodeResult(message({ stop_reason: 'stop_sequence', stop_sequence: 'END' })).finish, {
    reason: 'stop-sequence',
    raw: 'stop_sequence',
    stopSequence: 'END',
  });
});

t.test('a body that is not a Message is a 502, not a client error', async (t) => {
  for (const body of [
    'oops',
    { id: 'm', content: 'text' },
    { content: [] },
    { type: 'error', error: { type: 'api_error', message: 'x' } },
  ]) {
    t.match(
      caught(() => anthropicUpstreamCodec.decodeResult(body)),
      { kind: 'upstream', status: 502 },
      JSON.stringify(body),
    );
  }
});
