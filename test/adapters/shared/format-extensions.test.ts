// The namespace rule for cross-format data (adapters/shared/format-extensions.ts): an option only
// one format names travels in that format's namespace and reaches only that format's upstream
// encoder; another format's encoder drops it with a warning naming the field. Knobs formats share
// are IR fields each encoder maps to its own words. Reasoning goes back only to its origin.
import t from 'tap';
import { assistant, text, userText } from '../ir-messages.ts';
import { anthropicClientCodec } from '../../../adapters/anthropic-messages/index.ts';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import { openaiChatClientCodec } from '../../../adapters/openai-chat/index.ts';
import { responsesClientCodec } from '../../../adapters/openai-responses/index.ts';
import type { ChatClientCodec, ChatFormat, InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import { openReasoning, sealReasoning } from '../../../adapters/shared/reasoning-envelope.ts';
import type { ChatRequest, ReasoningPart } from '../../../src/ir/chat-request.ts';
import { upstreamCodecOf } from '../../../src/services/providers/upstream-codecs.ts';

const ctx: InboundContext = { headers: { 'anthropic-version': '2023-06-01' }, params: { model: 'm' }, query: {} };
const clientCodecs = [anthropicClientCodec, openaiChatClientCodec, responsesClientCodec, geminiClientCodec];
const client = Object.fromEntries(clientCodecs.map((c) => [c.format, c])) as Record<ChatFormat, ChatClientCodec>;
const formats = clientCodecs.map((c) => c.format as ChatFormat);

/** A minimal client body of each format with `extra` added at the top level. */
const bodyOf = (format: ChatFormat, extra: Record<string, unknown>): Record<string, unknown> => {
  switch (format) {
    case 'anthropic-messages':
      return { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...extra };
    case 'openai-chat':
      return { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra };
    case 'openai-responses':
      return { model: 'm', input: 'hi', ...extra };
    case 'gemini':
      return { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra };
  }
};
const encode = (format: ChatFormat, req: ChatRequest): { body: Record<string, unknown>; warnings: string[] } => {
  const warnings: string[] = [];
  const out = upstreamCodecOf(format).encodeRequest(req, 'up', (field, message) =>
    warnings.push(`${field}: ${message}`),
  );
  return { body: out.body as Record<string, unknown>, warnings };
};

/** One option each format alone has, as its client sends it, and where its upstream body carries it. */
const ownOption: Record<
  ChatFormat,
  { extra: Record<string, unknown>; field: string; sent: (body: Record<string, unknown>) => unknown }
> = {
  'anthropic-messages': { extra: { container: 'container_1' }, field: 'container', sent: (b) => b.container },
  'openai-chat': { extra: { logit_bias: { '50256': -100 } }, field: 'logit_bias', sent: (b) => b.logit_bias },
  'openai-responses': { extra: { max_tool_calls: 3 }, field: 'max_tool_calls', sent: (b) => b.max_tool_calls },
  gemini: { extra: { labels: { team: 'x' } }, field: 'labels', sent: (b) => b.labels },
};

for (const from of formats) {
  t.test(`${from}: its own option lives in its namespace`, async (t) => {
    const { extra, field, sent } = ownOption[from];
    const req = client[from].decodeRequest(bodyOf(from, extra), ctx);
    t.same(
      Object.keys(req.extensions[from] ?? {}).filter((k) => k === field),
      [field],
      'decoded into the namespace of its format',
    );
    for (const other of formats) if (other !== from) t.notOk(req.extensions[other], `nothing under ${other}`);

    const same = encode(from, req);
    t.same(sent(same.body), Object.values(extra)[0], 'the same format keeps it');
    t.notMatch(same.warnings.join('\n'), field, 'without a warning');
    for (const to of formats.filter((f) => f !== from)) {
      const out = encode(to, req);
      t.notMatch(JSON.stringify(out.body), JSON.stringify(Object.values(extra)[0]), `${to}: not sent`);
      t.match(
        out.warnings,
        [new RegExp(`^${field}: an option only ${from} has: the ${to} upstream has no field for it; dropped$`)],
        `${to}: named in a warning`,
      );
    }
  });
}

t.test('service tier: a shared knob, mapped to each format’s word or dropped with a warning', async (t) => {
  const words: Record<ChatFormat, [string, string]> = {
    'anthropic-messages': ['service_tier', 'standard_only'],
    'openai-chat': ['service_tier', 'default'],
    'openai-responses': ['service_tier', 'default'],
    gemini: ['serviceTier', 'standard'],
  };
  for (const from of formats) {
    const [field, word] = words[from];
    const req = client[from].decodeRequest(bodyOf(from, { [field]: word }), ctx);
    t.equal(req.serviceTier, 'standard', `${from} '${word}' is the standard tier`);
    t.notOk(req.extensions[from]?.[field], 'not kept as a wire word as well');
    for (const to of formats) {
      const [toField, toWord] = words[to];
      const out = encode(to, req);
      t.equal(out.body[toField], toWord, `${from} → ${to}: '${toWord}'`);
      t.same(out.warnings, [], 'an exact mapping warns of nothing');
    }
  }
  const flex = client['openai-chat'].decodeRequest(bodyOf('openai-chat', { service_tier: 'flex' }), ctx);
  const anth = encode('anthropic-messages', flex);
  t.notOk('service_tier' in anth.body);
  t.same(anth.warnings, [
    "service_tier: service tier 'flex' has no equivalent on the anthropic-messages upstream; dropped",
  ]);
  t.equal(encode('gemini', flex).body.serviceTier, 'flex', 'Gemini has a flex tier');
});

t.test('verbosity: shared by Chat and Responses, dropped with a warning elsewhere', async (t) => {
  const chat = client['openai-chat'].decodeRequest(bodyOf('openai-chat', { verbosity: 'low' }), ctx);
  t.equal(chat.verbosity, 'low');
  t.same(encode('openai-responses', chat).body.text, { verbosity: 'low' });
  const responses = client['openai-responses'].decodeRequest(
    bodyOf('openai-responses', { text: { verbosity: 'high' } }),
    ctx,
  );
  t.equal(encode('openai-chat', responses).body.verbosity, 'high');
  t.match(encode('anthropic-messages', chat).warnings, [/^verbosity: /]);
  t.match(encode('gemini', chat).warnings, [/^verbosity: /]);
});

t.test(
  'prompt-cache key, retention and safety id: shared by the two OpenAI formats, dropped with a warning elsewhere',
  async (t) => {
    const knobs = { prompt_cache_key: 'k1', prompt_cache_retention: '24h', safety_identifier: 'sid' };
    const chat = client['openai-chat'].decodeRequest(bodyOf('openai-chat', { ...knobs, user: 'u' }), ctx);
    t.match(encode('openai-responses', chat).body, knobs, 'Chat → Responses');
    const responses = client['openai-responses'].decodeRequest(bodyOf('openai-responses', knobs), ctx);
    t.match(encode('openai-chat', responses).body, knobs, 'Responses → Chat');
    t.same(encode('openai-responses', responses).warnings, []);
    for (const to of ['anthropic-messages', 'gemini'] as const) {
      const out = encode(to, chat);
      const named = out.warnings.map((w) => w.split(':')[0]).filter((f) => f in knobs);
      t.same(named.sort(), ['prompt_cache_key', 'prompt_cache_retention', 'safety_identifier'], `${to}: each named`);
      t.notMatch(JSON.stringify(out.body), /k1|24h/);
    }
  },
);

t.test("reasoning 'none' said by name reaches either OpenAI format", async (t) => {
  const chat = client['openai-chat'].decodeRequest(bodyOf('openai-chat', { reasoning_effort: 'none' }), ctx);
  t.same(encode('openai-responses', chat).body.reasoning, { effort: 'none' });
  const responses = client['openai-responses'].decodeRequest(
    bodyOf('openai-responses', { reasoning: { effort: 'none' } }),
    ctx,
  );
  t.equal(encode('openai-chat', responses).body.reasoning_effort, 'none');
});

t.test('origin: every decoder names its format; an encoder replays only its own', async (t) => {
  const request = (origin: ReasoningPart['origin']): ChatRequest => ({
    model: 'm',
    system: [],
    messages: [
      userText('q'),
      assistant({ type: 'reasoning', text: 'thinking', signature: 'opaque-sig', origin }, text('a')),
      userText('more'),
    ],
    tools: [],
    sampling: {},
    stream: false,
    extensions: {},
  });
  const anth = encode('anthropic-messages', request('anthropic-messages'));
  t.match(
    anth.body.messages,
    [{}, { content: [{ type: 'thinking', thinking: 'thinking', signature: 'opaque-sig' }] }],
    'Anthropic’s own signature goes back to Anthropic',
  );
  for (const origin of ['gemini', 'openai-responses', 'openai-chat', 'polygate'] as const) {
    const out = encode('anthropic-messages', request(origin));
    t.notMatch(JSON.stringify(out.body), /opaque-sig/, `${origin}'s signature is not sent to Anthropic`);
    t.match(out.warnings.join('\n'), /reasoning/, 'and the drop is named');
  }
  const gem = encode('gemini', request('gemini'));
  t.match(JSON.stringify(gem.body), /opaque-sig/, 'Gemini’s own thought signature goes back to Gemini');
  const foreign = encode('gemini', request('anthropic-messages'));
  t.notMatch(
    JSON.stringify(foreign.body),
    /"thoughtSignature":"opaque-sig"/,
    'an Anthropic signature is never presented as a Gemini one',
  );

  const decoded = client['anthropic-messages'].decodeRequest(
    bodyOf('anthropic-messages', {
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }] },
        { role: 'user', content: 'r' },
      ],
    }),
    ctx,
  );
  t.match(decoded.messages[1], { parts: [{ type: 'reasoning', origin: 'anthropic-messages' }] });
});

t.test('reasoning envelopes: the origin is a format name; older envelopes’ vendor names still open', async (t) => {
  const sealed = sealReasoning({ type: 'reasoning', text: 'x', signature: 's', origin: 'anthropic-messages' }, true);
  t.equal(openReasoning(sealed, '')?.origin, 'anthropic-messages');
  const legacy = Buffer.from(`polygate-sig/1:${JSON.stringify({ o: 'anthropic', s: 's' })}`).toString('base64');
  t.equal(
    openReasoning(legacy, '')?.origin,
    'anthropic-messages',
    "'anthropic' was Messages' origin before origins were format names",
  );
  const unknown = Buffer.from(`polygate-sig/1:${JSON.stringify({ s: 's' })}`).toString('base64');
  t.equal(openReasoning(unknown, '')?.origin, 'polygate', 'no known origin: no upstream is known to accept it');
});
