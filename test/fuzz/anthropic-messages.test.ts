// Fuzzing every decoder of the anthropic-messages adapter (test/fuzz/chat-fuzz.ts says the property):
// client requests with their headers, upstream messages, upstream SSE streams and error answers.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import t from 'tap';
import { anthropicClientCodec, anthropicUpstreamCodec } from '../../adapters/anthropic-messages/index.ts';
import type { InboundContext } from '../../adapters/shared/chat-adapter.ts';
import { fuzzChatFormat, upstreamCodecs } from './chat-fuzz.ts';
import { fixtureStreams } from './fixtures.ts';

const contexts: fc.Arbitrary<InboundContext> = fc.record({
  headers: fc.record(
    {
      'anthropic-version': fc.oneof(
        fc.constant('2023-06-01'),
        fc.constantFrom('', '2023-02-30', 'latest', '9999-99-99'),
        fc.string({ maxLength: 12 }),
      ),
      'anthropic-beta': fc.oneof(
        fc.constantFrom(
          'prompt-caching-2024-07-31',
          'mid-conversation-system-2026-04-07,effort-2025-11-24',
          'a,,b',
          ',',
          ' ',
        ),
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
        fc.string({ maxLength: 20 }),
      ),
    },
    { requiredKeys: [] },
  ),
  params: fc.constant({}),
  query: fc.constant({}),
});

/** An upstream Message with every block kind and citation type (a seed kept in test/fuzz/corpus/). */
const message = JSON.parse(
  readFileSync(new URL('corpus/anthropic-messages.result.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/**
 * A Claude Code turn (docs/clients.md; captured requests in test/clients/fixtures/): adaptive thinking with an effort, a system
 * prompt cached for an hour, a mid-conversation system message, tools with eager input streaming.
 */
const claudeCodeTurn = {
  model: 'claude-opus-4-5',
  max_tokens: 32000,
  stream: true,
  thinking: { type: 'adaptive' },
  output_config: { effort: 'high' },
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>ctx</system-reminder>' },
        { type: 'text', text: 'Fix the bug.', cache_control: { type: 'ephemeral' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Read it.', signature: 'EqQB' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'code' },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          ],
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Found it.' }] },
    { role: 'system', content: [{ type: 'text', text: '<system-reminder>Plan mode is on.</system-reminder>' }] },
    {
      role: 'user',
      content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }],
    },
  ],
  tools: [
    {
      name: 'Read',
      description: 'Reads a file',
      eager_input_streaming: true,
      input_schema: {
        type: 'object',
        properties: { file_path: { type: 'string' } },
        required: ['file_path'],
        additionalProperties: false,
        $schema: 'http://json-schema.org/draft-07/schema#',
      },
    },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 5, allowed_domains: ['example.com'] },
    { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
  ],
  tool_choice: { type: 'tool', name: 'Read' },
  metadata: { user_id: 'user_abc' },
  context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
};

/** Small seeds have few positions, so edits land on the media fields often. */
const mediaTurn = {
  model: 'm',
  max_tokens: 64,
  messages: [
    {
      role: 'user',
      content: [
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Hello' }, title: 'a.txt' },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      ],
    },
  ],
};

t.test('the Claude Code seed is a valid request, read in full', async (t) => {
  const ctx = {
    headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'mid-conversation-system-2026-04-07' },
    params: {},
    query: {},
  };
  const req = anthropicClientCodec.decodeRequest(claudeCodeTurn, ctx);
  t.match(req.reasoning, { enabled: true, adaptive: true, effort: 'high' });
  t.ok(
    req.messages.some((m) => m.role === 'system'),
    'the mid-conversation system message is in place',
  );
  t.match(req.system, [{ cache: { type: 'ephemeral', ttl: '1h' } }]);
  t.notMatch(JSON.stringify(req.extensions), /eager_input_streaming/, 'eager_input_streaming is left out silently');
});

fuzzChatFormat(t, {
  client: anthropicClientCodec,
  upstream: anthropicUpstreamCodec,
  requests: [claudeCodeTurn, mediaTurn],
  contexts,
  results: [message, { ...message, content: [{ type: 'text', text: 'Hi!' }], stop_reason: 'end_turn' }],
  streams: fixtureStreams('anthropic-messages', true),
  errors: [
    { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    {
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'Number of request tokens has exceeded your per-minute rate limit',
      },
      request_id: 'req_1',
    },
  ],
});

// Counterexamples the fuzzer found, kept as plain cases (each failed before its fix).
t.test('regressions', async (t) => {
  for (const key of ['constructor', 'hasOwnProperty', 'valueOf', 'toString']) {
    const body = JSON.parse(
      `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"${key}":1}`,
    ) as unknown;
    const request = anthropicClientCodec.decodeRequest(body, {
      headers: { 'anthropic-version': '2023-06-01' },
      params: {},
      query: {},
    });
    for (const up of upstreamCodecs) {
      t.doesNotThrow(
        () => up.encodeRequest(request, 'm', () => {}),
        `an unknown field '${key}' (an Object.prototype name) is no output-changing extension for ${up.format}: no 400 quoting its native code`,
      );
    }
  }
});
