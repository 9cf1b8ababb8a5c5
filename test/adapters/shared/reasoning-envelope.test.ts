// Another provider's reasoning through a Responses client: sealed into encrypted_content (only
// when the client asked for it), and opened again from a replayed reasoning item, so the next
// turn reaches the provider with its own signature.
import t from 'tap';
import { finishEvent, reasoningPart } from '../stream-events.ts';
import { responsesClientCodec } from '../../../adapters/openai-responses/index.ts';
import { openReasoning, sealReasoning } from '../../../adapters/shared/reasoning-envelope.ts';
import type { ChatRequest, ReasoningPart } from '../../../src/ir/chat-request.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';

const ctx = { headers: {}, params: {}, query: {} };
const decode = (body: Record<string, unknown>): ChatRequest =>
  responsesClientCodec.decodeRequest({ model: 'm', store: false, ...body }, ctx);

t.test('seal and open are inverse; other tokens are not envelopes', async (t) => {
  const p: ReasoningPart = {
    type: 'reasoning',
    text: 'x',
    signature: 'sig==',
    redacted: 'r',
    origin: 'anthropic-messages',
  };
  t.same(openReasoning(sealReasoning(p, true), ''), p);
  t.same(openReasoning(sealReasoning(p, false), 'given'), { ...p, text: 'given' });
  t.equal(openReasoning('gAAAAABo-openai-blob', ''), undefined);
});

const anthropicThinking: ReasoningPart = {
  type: 'reasoning',
  text: 'Let me think.',
  signature: 'sig-anthropic==',
  origin: 'anthropic-messages',
};
const result: ChatResult = {
  id: 'msg_1',
  model: 'up',
  parts: [anthropicThinking, { type: 'text', text: 'Done.' }],
  finish: { reason: 'stop', raw: 'end_turn' },
  usage: { inputTokens: 1, outputTokens: 1 },
};

t.test('a response object: encrypted_content carries the sealed signature only when included', async (t) => {
  const withInclude = decode({ input: 'q', include: ['reasoning.encrypted_content'] });
  const out = (responsesClientCodec.encodeResult(result, withInclude) as { output: Array<Record<string, unknown>> })
    .output;
  const item = out.find((i) => i.type === 'reasoning')!;
  t.type(item.encrypted_content, 'string');
  const replay = decode({ input: [{ role: 'user', content: 'q' }, item, { role: 'user', content: 'again' }] });
  t.same(
    replay.messages[1].parts[0],
    anthropicThinking,
    'the replayed item is Anthropic’s thinking again, signature byte-exact',
  );
  const without = (
    responsesClientCodec.encodeResult(result, decode({ input: 'q' })) as { output: Array<Record<string, unknown>> }
  ).output;
  t.notOk('encrypted_content' in without.find((i) => i.type === 'reasoning')!, 'not asked for: not sent');
});

t.test('a stream: the same through output_item.done', async (t) => {
  const request = decode({ input: 'q', stream: true, include: ['reasoning.encrypted_content'] });
  const enc = responsesClientCodec.createStreamEncoder(request);
  const events: StreamEvent[] = [
    { type: 'start', id: 'x', model: 'up' },
    ...reasoningPart(0, 'gemini', { deltas: ['thought'], signature: 'c2lnLWdlbWluaQ==' }),
    finishEvent('stop', 'STOP', { inputTokens: 1, outputTokens: 1 }),
  ];
  const frames = events.flatMap((e) => enc.push(e)).map((f) => JSON.parse(f.data) as Record<string, unknown>);
  const done = frames.find((f) => f.type === 'response.output_item.done')!.item as Record<string, unknown>;
  t.match(done.id, /^rs_/, 'a Responses item id of its own');
  const replay = decode({ input: [done, { role: 'user', content: 'again' }] });
  t.same(replay.messages[0].parts[0], {
    type: 'reasoning',
    text: 'thought',
    signature: 'c2lnLWdlbWluaQ==',
    origin: 'gemini',
  });
});
