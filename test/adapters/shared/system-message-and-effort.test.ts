// Two IR features every upstream encoder handles in its own way: a mid-conversation system
// message (adapters/shared/system-message.ts) and adaptive thinking with an effort
// (adapters/shared/reasoning-map.ts, nearestEffort).
import t from 'tap';
import { assistant, system, text, toolCall, toolResult, user, userText } from '../ir-messages.ts';
import { anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import { openaiChatUpstreamCodec } from '../../../adapters/openai-chat/index.ts';
import { responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';
import type { ChatUpstreamCodec } from '../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest, ReasoningConfig } from '../../../src/ir/chat-request.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

import type { Json } from '../../helpers/json.ts';
const ir = (patch: Partial<ChatRequest>): ChatRequest => chatRequest({ model: 'm', ...patch });
const encode = (codec: ChatUpstreamCodec, req: ChatRequest): { body: Json; warnings: string[] } => {
  const warnings: string[] = [];
  const out = codec.encodeRequest(req, 'up', (f, m) => warnings.push(`${f}: ${m}`));
  return { body: out.body as Json, warnings };
};

/** A tool round trip, then an instruction, then the next question. */
const conversation: ChatRequest['messages'] = [
  userText('list files'),
  assistant(toolCall('c1', 'ls', '{}')),
  system(text('be brief')),
  user(toolResult('c1', 'a b'), text('and now?')),
];

t.test('chat: a system message in place, after the tool messages that must follow the calls', async (t) => {
  const { body, warnings } = encode(
    openaiChatUpstreamCodec,
    ir({ system: [{ type: 'text', text: 'sys' }], messages: conversation }),
  );
  t.same(
    body.messages.map((m: Json) => [m.role, m.content ?? null]),
    [
      ['system', 'sys'],
      ['user', 'list files'],
      ['assistant', null],
      ['tool', 'a b'],
      ['system', 'be brief'],
      ['user', 'and now?'],
    ],
  );
  t.same(warnings, []);
});

t.test('responses: a developer message item in place', async (t) => {
  const { body, warnings } = encode(responsesUpstreamCodec, ir({ messages: conversation }));
  t.same(
    body.input.map((i: Json) => i.role ?? i.type),
    ['user', 'function_call', 'developer', 'function_call_output', 'user'],
  );
  t.same(body.input[2], { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'be brief' }] });
  t.same(warnings, []);
});

t.test('gemini: folded into a user turn as marked text, with one warning', async (t) => {
  const { body, warnings } = encode(geminiUpstreamCodec, ir({ messages: conversation }));
  t.same(body.contents[2], {
    role: 'user',
    parts: [{ text: '<system-instruction>\nbe brief\n</system-instruction>' }],
  });
  t.equal(warnings.length, 1);
  t.match(warnings[0], /^messages\.2: gemini has no mid-conversation system message/);
});

t.test('adaptive thinking with an effort reaches every upstream at its nearest level', async (t) => {
  const reasoning = (effort: ReasoningConfig['effort']): Partial<ChatRequest> => ({
    reasoning: { enabled: true, adaptive: true, effort, includeThoughts: true },
  });
  const cases: Array<[ReasoningConfig['effort'], string, string, number, string]> = [
    // effort, chat reasoning_effort, responses reasoning.effort, gemini thinkingBudget, anthropic output_config.effort
    ['max', 'xhigh', 'xhigh', 24576, 'max'],
    ['xhigh', 'xhigh', 'xhigh', 24576, 'xhigh'],
    ['high', 'high', 'high', 24576, 'high'],
    ['medium', 'medium', 'medium', 8192, 'medium'],
    ['low', 'low', 'low', 2048, 'low'],
    ['minimal', 'minimal', 'minimal', 1024, 'low'],
  ];
  for (const [effort, chat, responses, gemini, anthropic] of cases) {
    t.equal(encode(openaiChatUpstreamCodec, ir(reasoning(effort))).body.reasoning_effort, chat, `chat ${effort}`);
    t.equal(
      encode(responsesUpstreamCodec, ir(reasoning(effort))).body.reasoning.effort,
      responses,
      `responses ${effort}`,
    );
    t.equal(
      encode(geminiUpstreamCodec, ir(reasoning(effort))).body.generationConfig.thinkingConfig.thinkingBudget,
      gemini,
      `gemini ${effort}`,
    );
    t.equal(
      encode(anthropicUpstreamCodec, ir(reasoning(effort))).body.output_config.effort,
      anthropic,
      `anthropic ${effort}`,
    );
  }
  const dynamic = encode(geminiUpstreamCodec, ir({ reasoning: { enabled: true, adaptive: true } })).body
    .generationConfig.thinkingConfig;
  t.equal(dynamic.thinkingBudget, -1, "adaptive without an effort is Gemini's dynamic budget");
});
