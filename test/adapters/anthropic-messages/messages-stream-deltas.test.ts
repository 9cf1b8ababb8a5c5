// The Messages stream encoder builds its string deltas (text, thinking, signature, tool input) as
// text rather than through JSON.stringify of a wrapper object (issue #28, the per-chunk cost): the
// bytes must be exactly what serializing the object gives, whatever the text holds.
import t from 'tap';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const awkward = [
  'plain',
  '',
  'quotes " and \\ backslashes',
  'new\nline\ttab\r\u0000\u001f',
  'line separators \u2028 \u2029',
  'emoji 🦀 and é',
  'lone surrogate \ud800 end',
  '</script>{"type":"x"}',
];

t.test('each string delta is the JSON of its object form', async (t) => {
  for (const text of awkward) {
    const enc = anthropicClientCodec.createStreamEncoder(
      chatRequest({ model: 'claude-sonnet', messages: [], stream: true }),
    );
    const events: StreamEvent[] = [
      { type: 'start', id: 'msg_1', model: 'm' },
      { type: 'reasoning-start', index: 0, origin: 'anthropic-messages' },
      { type: 'reasoning-delta', index: 0, text },
      { type: 'reasoning-signature', index: 0, signature: text },
      { type: 'reasoning-end', index: 0 },
      { type: 'text-delta', index: 1, text },
      { type: 'refusal-delta', index: 1, text },
      { type: 'text-end', index: 1 },
      { type: 'tool-input-start', index: 2, id: 'toolu_1', name: 'f' },
      { type: 'tool-input-delta', index: 2, json: text },
    ];
    const deltas = events.flatMap((e) => enc.push(e)).filter((f) => f.event === 'content_block_delta');
    const expected = [
      { index: 0, delta: { type: 'thinking_delta', thinking: text } },
      { index: 0, delta: { type: 'signature_delta', signature: text } },
      { index: 1, delta: { type: 'text_delta', text } },
      { index: 1, delta: { type: 'text_delta', text } },
      { index: 2, delta: { type: 'input_json_delta', partial_json: text } },
    ].map((body) => JSON.stringify({ type: 'content_block_delta', ...body }));
    t.same(
      deltas.map((f) => f.data),
      expected,
      // The name in ASCII: a raw U+2028 in an assertion's name ends its line for tap's own parser.
      JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
  }
});
