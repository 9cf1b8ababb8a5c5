// Extensions across formats: what a client decoder keeps for its own answer is never reported as
// dropped by another format's upstream encoder, and what would change the answer is refused
// with a 400 naming the field and the provider instead of being dropped.
import t from 'tap';
import { anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import { openaiChatUpstreamCodec } from '../../../adapters/openai-chat/index.ts';
import { responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';
import type { ChatUpstreamCodec } from '../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';

const request = (extensions: Record<string, unknown>): ChatRequest => ({
  model: 'm',
  system: [{ type: 'text', text: 'sys' }],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  sampling: {},
  stream: false,
  extensions,
});
const codecs: Array<[string, ChatUpstreamCodec]> = [
  ['anthropic-messages', anthropicUpstreamCodec],
  ['openai-chat', openaiChatUpstreamCodec],
  ['openai-responses', responsesUpstreamCodec],
  ['gemini', geminiUpstreamCodec],
];
const warnings = (codec: ChatUpstreamCodec, ext: Record<string, unknown>): string[] => {
  const seen: string[] = [];
  codec.encodeRequest(request(ext), 'up', (field) => seen.push(field));
  return seen;
};

for (const [name, codec] of codecs) {
  t.test(name, async (t) => {
    // A Responses client's `instructions` (sent as the system prompt) and `include`, a Chat client's
    // stream_options, a Gemini client's text/x.enum and thinkingLevel: consumed, not dropped.
    const clientSide = { instructions: 'sys', include: ['reasoning.encrypted_content'], 'stream_options.include_usage': true, responseMimeType: 'text/x.enum', thinkingLevel: 'LOW' };
    t.same(warnings(codec, clientSide), [], 'no warning for client-side extensions');
    for (const [key, value] of [
      ['cachedContent', 'cachedContents/abc'],
      ['speechConfig', { languageCode: 'en-US' }],
      ['responseModalities', ['TEXT', 'IMAGE']],
      ['prompt', { id: 'pmpt_1' }],
      ['mcp_servers', [{ type: 'url', url: 'https://mcp.example', name: 'x' }]],
      ['background', true],
      ['web_search_options', {}],
    ] as const) {
      const native =
        (name === 'gemini' && ['cachedContent', 'speechConfig', 'responseModalities'].includes(key)) ||
        (name === 'openai-responses' && key === 'prompt') ||
        (name === 'anthropic-messages' && key === 'mcp_servers') ||
        (name === 'openai-chat' && key === 'web_search_options');
      if (native) continue;
      const err = (() => {
        try {
          warnings(codec, { [key]: value });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      t.type(err, GatewayError, `${key} is refused`);
      t.match(err, { status: 400, param: key, message: new RegExp(name) }, `${key}: a 400 naming the field and the provider`);
    }
    if (name !== 'gemini') t.same(warnings(codec, { responseModalities: ['TEXT'] }), ['responseModalities'], 'text-only modalities are a knob: dropped with a warning');
    // Open world: an offered Gemini tool the upstream lacks is dropped with a warning, not refused.
    if (name !== 'gemini') t.same(warnings(codec, { 'tools.urlContext': {} }), ['tools.urlContext'], 'an unknown offered tool: dropped with a warning');
  });
}
