// The Chat stream decoder reads a text chunk that is a previous one's text around a new content
// string by parsing that string alone (adapters/openai-chat/chat-text-template.ts, issue #28). Its
// events must be those of parsing every chunk whole: compared here with the same decoder fed the
// same chunks made unmatchable (each chunk's JSON with its own whitespace, which parses alike),
// on seeded random streams and on chunks built to mislead it.
import t from 'tap';
import { openaiChatUpstreamCodec as codec } from '../../../adapters/openai-chat/index.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { randomSseBytes, seeded } from '../../helpers/random-sse.ts';

const show = (events: StreamEvent[]): string =>
  JSON.stringify(events, (_k, v: unknown) => (v instanceof Error ? { error: v.message } : v));

function decode(datas: string[]): string {
  const d = codec.createStreamDecoder();
  const out = datas.flatMap((data) => d.push({ data }));
  return show([...out, ...d.end()]);
}

/** Each chunk with a different run of spaces after its first `{`: no two share a head, so each is parsed whole. */
const whole = (datas: string[]): string[] =>
  datas.map((d, i) => (d.startsWith('{') ? `{${' '.repeat(i + 1)}${d.slice(1)}` : d));

/** The `data` values of a random stream (its framing is the SSE reader's test; here only the chunks). */
function datas(seed: number): string[] {
  const text = randomSseBytes(seeded(seed)).toString('utf8');
  const out: string[] = [];
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/))
    for (const line of block.split(/\r\n|\n|\r/)) if (line.startsWith('data:')) out.push(line.slice(5).trim());
  return out;
}

t.test('random streams: the same events as parsing every chunk whole', async (t) => {
  let differing = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const ds = datas(seed);
    if (decode(ds) !== decode(whole(ds)) && ++differing <= 3) t.fail(`seed ${seed}`);
  }
  t.equal(differing, 0, '2,000 streams');
});

const base = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":';
const text = (s: string, tail = ',"logprobs":null,"finish_reason":null}]}') =>
  `${base}{"content":${JSON.stringify(s)}}${tail}`;

t.test('chunks built to mislead the template', async (t) => {
  const cases: [string, string[]][] = [
    ['plain text, escapes, empty', [text('a'), text('b "q" \\ \n é 😀'), text(''), text('c')]],
    [
      'a number where the text was',
      [text('a'), text('b'), `${base}{"content":5},"logprobs":null,"finish_reason":null}]}`],
    ],
    [
      'two values where the text was',
      [text('a'), text('b'), `${base}{"content":"x","refusal":"no"},"logprobs":null,"finish_reason":null}]}`],
    ],
    [
      'whitespace around the text',
      [text('a'), text('b'), `${base}{"content": "x" },"logprobs":null,"finish_reason":null}]}`],
    ],
    [
      // The tail as long as the template's but not its text: only the tail's comparison tells them apart.
      'a tail of the same length that finishes the answer',
      [text('a'), text('b'), text('c', ',"logprobs":null,"finish_reason":"ab"}]}'), text('d')],
    ],
    [
      'a duplicate content key: the later one counts',
      [
        `${base}{"content":"a","content":"b"},"logprobs":null,"finish_reason":null}]}`,
        `${base}{"content":"c","content":"d"},"logprobs":null,"finish_reason":null}]}`,
      ],
    ],
    [
      'the text key first, then an overriding one',
      [
        `${base}{"content":"a"},"logprobs":null,"finish_reason":null,"delta":{"content":"z"}}]}`,
        `${base}{"content":"b"},"logprobs":null,"finish_reason":null,"delta":{"content":"z"}}]}`,
      ],
    ],
    [
      'a content key after the choices',
      [
        text('a', ',"logprobs":null,"finish_reason":null}],"x":{"content":"q"}}'),
        text('b', ',"logprobs":null,"finish_reason":null}],"x":{"content":"r"}}'),
      ],
    ],
    [
      'the same text, a content key after the choices that changes',
      [
        text('a', ',"logprobs":null,"finish_reason":null}],"x":{"content":"q"}}'),
        text('a', ',"logprobs":null,"finish_reason":null}],"x":{"content":"r"}}'),
      ],
    ],
    [
      'the same text, a second choice whose text changes',
      [
        text('a', ',"finish_reason":null},{"index":0,"delta":{"content":"s"}}]}'),
        text('a', ',"finish_reason":null},{"index":0,"delta":{"content":"t"}}]}'),
      ],
    ],
    [
      'a second choice at index 0 after the first',
      [
        text('a', ',"finish_reason":null},{"index":0,"delta":{"content":"s"}}]}'),
        text('b', ',"finish_reason":null},{"index":0,"delta":{"content":"t"}}]}'),
      ],
    ],
    [
      'a finish in the same chunk as text',
      [
        text('a'),
        text('b', ',"logprobs":null,"finish_reason":"stop"}]}'),
        text('c', ',"logprobs":null,"finish_reason":"stop"}]}'),
      ],
    ],
    [
      'usage with the text',
      [
        text('a'),
        text('b', ',"finish_reason":null}],"usage":{"prompt_tokens":1}}'),
        text('c', ',"finish_reason":null}],"usage":{"prompt_tokens":2}}'),
      ],
    ],
    ['an error with the text', [text('a'), text('b', ',"finish_reason":null}],"error":{"message":"x"}}')]],
    [
      'text in a tool-call chunk',
      [
        text('a'),
        `${base}{"content":"b","tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}`,
        `${base}{"content":"c","tool_calls":[{"index":0,"function":{"arguments":"1"}}]},"finish_reason":null}]}`,
      ],
    ],
    [
      'reasoning and text together',
      [
        `${base}{"content":"a","reasoning_content":"r"},"finish_reason":null}]}`,
        `${base}{"content":"b","reasoning_content":"s"},"finish_reason":null}]}`,
      ],
    ],
    [
      'not JSON after the head',
      [text('a'), text('b'), `${base}{"content":"x},"logprobs":null,"finish_reason":null}]}`],
    ],
  ];
  for (const [name, ds] of cases) {
    const all = [...ds, text('end', ',"logprobs":null,"finish_reason":"stop"}]}'), '[DONE]'];
    t.equal(decode(all), decode(whole(all)), name);
  }
});
