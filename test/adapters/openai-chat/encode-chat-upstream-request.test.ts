import t from 'tap';
import { thrownGatewayError as thrown } from '../thrown-gateway-error.ts';
import { assistant, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import { openaiChatUpstreamCodec as codec } from '../../../adapters/openai-chat/index.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { fixtureJson, warnings } from './fixtures.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

type Body = Record<string, unknown> & { messages: Array<Record<string, unknown>> };

const base = (over: Partial<ChatRequest> = {}): ChatRequest => chatRequest({ model: 'client-model', ...over });

function encode(req: ChatRequest): {
  body: Body;
  warned: Array<{ field: string; message: string }>;
  path: string;
  headers: Record<string, string>;
} {
  const w = warnings();
  const r = codec.encodeRequest(req, 'gpt-4.1', w.warn);
  return { body: r.body as Body, warned: w.list, path: r.path, headers: r.headers };
}

// The golden body itself: test/adapters/golden-fixtures.test.ts (upstream-mixed.upstream.json).
t.test('mixed request (system parts, pdf, image, reasoning, error tool result with an image)', async (t) => {
  const { warned, path, headers } = encode(fixtureJson('upstream-mixed.ir.json') as ChatRequest);
  t.equal(path, '/chat/completions', 'relative to a base_url that ends in /v1');
  t.strictSame(headers, {}, 'auth is added by the provider');
  t.strictSame(
    warned.map((w) => w.field),
    ['messages.1.reasoning', 'top_k'],
    'reasoning and top_k are reported, nothing else',
  );
});

t.test('a plain request: model rewritten, one system string first, no stream fields, no warnings', async (t) => {
  const { body, warned } = encode(base({ system: [{ type: 'text', text: 'Be terse.' }] }));
  t.equal(body.model, 'gpt-4.1');
  t.strictSame(body.messages, [
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: 'hi' },
  ]);
  t.notOk('stream' in body);
  t.notOk('stream_options' in body);
  t.strictSame(warned, []);
});

t.test('no system parts: no system message', async (t) => {
  t.equal(encode(base()).body.messages[0].role, 'user');
});

t.test('stream always asks for the usage chunk, whatever the client asked', async (t) => {
  const { body } = encode(
    base({ stream: true, extensions: { 'openai-chat': { 'stream_options.include_usage': false } } }),
  );
  t.equal(body.stream, true);
  t.strictSame(body.stream_options, { include_usage: true });
});

t.test('tool results become tool messages placed before the rest of the user turn', async (t) => {
  const { body } = encode(
    base({
      messages: [
        userText('go'),
        assistant(toolCall('c1', 'a', '{"x":1}'), toolCall('c2', 'b', ' { "y" : 2 } ')),
        user(text('and also…'), toolResult('c1', 'one'), toolResult('c2', ['two', 'parts'])),
      ],
    }),
  );
  t.strictSame(body.messages.slice(1), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'c2', type: 'function', function: { name: 'b', arguments: ' { "y" : 2 } ' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'one' },
    {
      role: 'tool',
      tool_call_id: 'c2',
      content: [
        { type: 'text', text: 'two' },
        { type: 'text', text: 'parts' },
      ],
    },
    { role: 'user', content: 'and also…' },
  ]);
});

t.test('a failed tool result is marked with an Error: prefix (no error flag in Chat Completions)', async (t) => {
  const { body } = encode(
    base({ messages: [user({ type: 'tool-result', callId: 'c1', content: [], isError: true })] }),
  );
  t.strictSame(body.messages, [{ role: 'tool', tool_call_id: 'c1', content: 'Error' }]);
});

t.test(
  'an offered builtin tool is dropped with a warning naming tools.N (open world); forcing it is a 400',
  async (t) => {
    const tools: ChatRequest['tools'] = [
      { type: 'function', name: 'f', parameters: { type: 'object' } },
      { type: 'builtin', kind: 'web-search', name: 'web_search', options: {} },
    ];
    const { body, warned } = encode(base({ tools }));
    t.same(
      (body.tools as Array<{ function: { name: string } }>).map((x) => x.function.name),
      ['f'],
    );
    t.equal(warned.length, 1);
    t.equal(warned[0]?.field, 'tools.1');
    t.match(warned[0]?.message, /openai-chat upstream.*web-search.*dropped/);
    const err = thrown(() => encode(base({ tools, toolChoice: { type: 'tool', name: 'web_search' } })));
    t.equal(err.status, 400);
    t.equal(err.param, 'tool_choice');
  },
);

t.test('tool_choice variants', async (t) => {
  const tools: ChatRequest['tools'] = [{ type: 'function', name: 'f', parameters: { type: 'object' } }];
  const choice = (toolChoice: ChatRequest['toolChoice']): unknown =>
    encode(base({ tools, toolChoice })).body.tool_choice;
  t.equal(choice({ type: 'auto' }), 'auto');
  t.equal(choice({ type: 'none' }), 'none');
  t.equal(choice({ type: 'required' }), 'required');
  t.strictSame(choice({ type: 'tool', name: 'f' }), { type: 'function', function: { name: 'f' } });
  t.strictSame(choice({ type: 'allowed', names: ['f'], mode: 'auto' }), {
    type: 'allowed_tools',
    allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'f' } }] },
  });
});

t.test('output formats and sampling knobs', async (t) => {
  t.strictSame(encode(base({ output: { type: 'json' } })).body.response_format, { type: 'json_object' });
  t.notOk('response_format' in encode(base({ output: { type: 'text' } })).body);
  const { body, warned } = encode(
    base({
      parallelToolCalls: false,
      maxTokens: 50,
      sampling: {
        temperature: 1,
        topP: 0.5,
        seed: 3,
        presencePenalty: 0.1,
        frequencyPenalty: -0.1,
        stop: ['a', 'b'],
        candidateCount: 1,
        logprobs: true,
        topLogprobs: 2,
      },
    }),
  );
  t.strictSame(
    { ...body, messages: undefined, model: undefined },
    {
      messages: undefined,
      model: undefined,
      parallel_tool_calls: false,
      max_completion_tokens: 50,
      temperature: 1,
      top_p: 0.5,
      seed: 3,
      presence_penalty: 0.1,
      frequency_penalty: -0.1,
      stop: ['a', 'b'],
      n: 1,
      logprobs: true,
      top_logprobs: 2,
    },
  );
  t.strictSame(warned, []);
});

t.test('more than 4 stop sequences is a 400, not a silent cut', async (t) => {
  const err = thrown(() => encode(base({ sampling: { stop: ['1', '2', '3', '4', '5'] } })));
  t.equal(err.param, 'stop');
  t.match(err.message, /at most 4/);
});

t.test('reasoning: effort as is, budget through the shared map, off by name sends none', async (t) => {
  t.equal(encode(base({ reasoning: { enabled: true, effort: 'high' } })).body.reasoning_effort, 'high');
  t.equal(encode(base({ reasoning: { enabled: true, budgetTokens: 1000 } })).body.reasoning_effort, 'minimal');
  t.equal(encode(base({ reasoning: { enabled: true, budgetTokens: 30000 } })).body.reasoning_effort, 'high');
  t.equal(encode(base({ reasoning: { enabled: true, effort: 'xhigh' } })).body.reasoning_effort, 'xhigh');
  t.equal(encode(base({ reasoning: { enabled: false, effort: 'none' } })).body.reasoning_effort, 'none');
  t.notOk(
    'reasoning_effort' in encode(base({ reasoning: { enabled: false } })).body,
    "another format's plain off is the default",
  );
  const { warned } = encode(base({ reasoning: { enabled: true, effort: 'low', includeThoughts: true } }));
  t.strictSame(
    warned.map((w) => w.field),
    ['reasoning.include_thoughts'],
  );
});

t.test(
  'extensions: Chat Completions fields relayed, unknown ones named in a warning, client-only ones ignored',
  async (t) => {
    const { body, warned } = encode(
      base({
        metadata: { a: 'b' },
        extensions: {
          'openai-chat': {
            store: true,
            logit_bias: { '50256': -100 },
            thinking_budget_mode: 'x',
            'stream_options.include_usage': true,
          },
        },
      }),
    );
    t.equal(body.store, true);
    t.strictSame(body.logit_bias, { '50256': -100 });
    t.strictSame(body.metadata, { a: 'b' }, 'metadata kept when the completion is stored');
    t.notOk('thinking_budget_mode' in body);
    t.strictSame(
      warned.map((w) => w.field),
      ['thinking_budget_mode'],
    );
    const unstored = encode(base({ metadata: { a: 'b' } }));
    t.notOk('metadata' in unstored.body);
    t.strictSame(
      unstored.warned.map((w) => w.field),
      ['metadata'],
    );
  },
);

t.test('cache hints are reported once', async (t) => {
  const { warned } = encode(
    base({
      system: [{ type: 'text', text: 's', cache: { type: 'ephemeral' } }],
      messages: [user({ type: 'text', text: 'x', cache: { type: 'ephemeral' } })],
    }),
  );
  t.strictSame(
    warned.map((w) => w.field),
    ['cache_control'],
  );
});

t.test('media the format cannot carry is a 400 naming the part', async (t) => {
  const fileIdImage = thrown(() =>
    encode(base({ messages: [user({ type: 'image', source: { kind: 'file-id', fileId: 'file_1' } })] })),
  );
  t.equal(fileIdImage.param, 'messages.0.content.0');
  const pdfUrl = thrown(() =>
    encode(
      base({
        messages: [
          user(text('x'), {
            type: 'file',
            source: { kind: 'url', url: 'https://x/a.pdf', mediaType: 'application/pdf' },
          }),
        ],
      }),
    ),
  );
  t.equal(pdfUrl.param, 'messages.0.content.1');
  t.match(pdfUrl.message, /inline/);
  const assistantImage = thrown(() =>
    encode(
      base({
        messages: [assistant({ type: 'image', source: { kind: 'url', url: 'https://x/a.png' } })],
      }),
    ),
  );
  t.equal(assistantImage.param, 'messages.0.content.0');
});

t.test('documents: text sources and base64 text become text; file ids stay file ids', async (t) => {
  const { body } = encode(
    base({
      messages: [
        user(
          { type: 'file', source: { kind: 'text', mediaType: 'text/plain', text: 'plain doc' } },
          {
            type: 'file',
            source: { kind: 'base64', mediaType: 'text/markdown', data: Buffer.from('# héllo').toString('base64') },
          },
          { type: 'file', source: { kind: 'file-id', fileId: 'file-abc' } },
        ),
      ],
    }),
  );
  t.strictSame(body.messages[0].content, [
    { type: 'text', text: 'plain doc' },
    { type: 'text', text: '# héllo' },
    { type: 'file', file: { file_id: 'file-abc' } },
  ]);
});

t.test('assistant refusal travels as refusal; reasoning-only assistant turns vanish with a warning', async (t) => {
  const { body, warned } = encode(
    base({
      messages: [
        userText('q'),
        assistant({ type: 'refusal', text: 'I cannot help with that.' }),
        assistant({ type: 'reasoning', text: 'hmm', origin: 'openai-chat' }),
      ],
    }),
  );
  t.strictSame(body.messages, [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: '', refusal: 'I cannot help with that.' },
  ]);
  t.strictSame(
    warned.map((w) => w.field),
    ['messages.2.reasoning'],
  );
});
