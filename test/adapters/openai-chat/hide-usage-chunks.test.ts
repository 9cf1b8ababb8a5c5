// The Chat relay asks every stream for usage; a client that did not gets the stream it would have
// had: no usage-only chunk, no `"usage":null`, every other byte as the upstream wrote it, however
// the upstream's writes cut the events.
import t from 'tap';
import { chatRelay } from '../../../adapters/openai-chat/chat-relay.ts';
import { hideUsageChunks } from '../../../adapters/openai-chat/hide-usage-chunks.ts';

const chunk = (delta: string, usage: string): string =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(delta)}},"finish_reason":null}]${usage}}`;
const withUsage = [
  chunk('Hel', ',"usage":null'),
  chunk('lo "usage":null', ',"usage":null'),
  'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
  'data: [DONE]',
];
const without = [chunk('Hel', ''), chunk('lo "usage":null', ''), 'data: [DONE]'];

for (const eol of ['\n', '\r\n']) {
  const upstream = withUsage.map((e) => e + eol + eol).join('');
  const expected = without.map((e) => e + eol + eol).join('');
  t.test(`${JSON.stringify(eol)} line ends, cut at every offset`, async (t) => {
    for (let cut = 0; cut <= upstream.length; cut++) {
      const f = hideUsageChunks();
      const out = f.push(upstream.slice(0, cut)) + f.push(upstream.slice(cut)) + f.end();
      if (out !== expected) return t.equal(out, expected, `cut at ${cut}`);
    }
    t.pass('the same stream whatever the cut');
  });
}

t.test('an event that is not JSON, or an obfuscation field after usage, stays intact', async (t) => {
  const f = hideUsageChunks();
  t.equal(f.push('data: {oops "usage":null\n\n'), 'data: {oops "usage":null\n\n');
  t.equal(
    f.push('data: {"choices":[],"usage":null,"obfuscation":"x"}\n\n'),
    'data: {"choices":[],"obfuscation":"x"}\n\n',
  );
  t.equal(f.push(': keep-alive comment\n\n'), ': keep-alive comment\n\n');
});

t.test('the relay asks for usage only on streams whose client did not', async (t) => {
  t.same(chatRelay({ model: 'a', stream: false }, 'up', false), {
    path: '/chat/completions',
    body: { model: 'up', stream: false },
  });
  const asked = chatRelay({ model: 'a', stream: true, stream_options: { include_usage: true } }, 'up', true);
  t.equal(asked.clientStream, undefined, 'a client that asked sees the upstream stream as it is');
  const unasked = chatRelay({ model: 'a', stream: true, stream_options: { include_obfuscation: false } }, 'up', true);
  t.same(unasked.body, {
    model: 'up',
    stream: true,
    stream_options: { include_obfuscation: false, include_usage: true },
  });
  t.type(unasked.clientStream, 'function');
});
