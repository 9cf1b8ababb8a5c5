// Extensions across formats: what a client decoder keeps for its own answer is never reported as
// dropped by another format's upstream encoder, and what would change the answer is refused
// with a 400 naming the field and the provider instead of being dropped.
import t from 'tap';
import { anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import { geminiUpstreamCodec } from '../../../adapters/gemini/index.ts';
import { openaiChatUpstreamCodec } from '../../../adapters/openai-chat/index.ts';
import { responsesUpstreamCodec } from '../../../adapters/openai-responses/index.ts';
import type { ChatUpstreamCodec } from '../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest, Extensions } from '../../../src/ir/chat-request.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { WireFormat } from '../../../src/ir/wire-format.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

const request = (extensions: Extensions): ChatRequest =>
  chatRequest({ model: 'm', system: [{ type: 'text', text: 'sys' }], extensions });
const codecs: Array<[WireFormat, ChatUpstreamCodec]> = [
  ['anthropic-messages', anthropicUpstreamCodec],
  ['openai-chat', openaiChatUpstreamCodec],
  ['openai-responses', responsesUpstreamCodec],
  ['gemini', geminiUpstreamCodec],
];
const warnings = (codec: ChatUpstreamCodec, ext: Extensions): string[] => {
  const seen: string[] = [];
  codec.encodeRequest(request(ext), 'up', (field) => seen.push(field));
  return seen;
};

for (const [name, codec] of codecs) {
  t.test(name, async (t) => {
    // A Responses client's `instructions` (sent as the system prompt), `include` and `store`
    // (polygate keeps the conversation), a Chat client's stream_options, a Gemini client's
    // text/x.enum and thinkingLevel: consumed, not dropped.
    const clientSide: Extensions = {
      'openai-responses': { instructions: 'sys', include: ['reasoning.encrypted_content'], store: true },
      'openai-chat': { 'stream_options.include_usage': true },
      gemini: { responseMimeType: 'text/x.enum', thinkingLevel: 'LOW' },
    };
    t.same(warnings(codec, clientSide), [], 'no warning for client-side extensions');
    for (const [owner, key, value] of [
      ['gemini', 'cachedContent', 'cachedContents/abc'],
      ['gemini', 'speechConfig', { languageCode: 'en-US' }],
      ['gemini', 'responseModalities', ['TEXT', 'IMAGE']],
      ['openai-responses', 'prompt', { id: 'pmpt_1' }],
      ['anthropic-messages', 'mcp_servers', [{ type: 'url', url: 'https://mcp.example', name: 'x' }]],
      ['openai-responses', 'background', true],
      ['openai-chat', 'web_search_options', {}],
    ] as const) {
      // The owner's own encoder carries it (a same-format route).
      if (owner === name) continue;
      const err = (() => {
        try {
          warnings(codec, { [owner]: { [key]: value } });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      t.type(err, GatewayError, `${key} is refused`);
      t.match(
        err,
        { status: 400, param: key, message: new RegExp(name) },
        `${key}: a 400 naming the field and the provider`,
      );
    }
    if (name !== 'gemini')
      t.same(
        warnings(codec, { gemini: { responseModalities: ['TEXT'] } }),
        ['responseModalities'],
        'text-only modalities are a knob: dropped with a warning',
      );
    // Open world: an offered Gemini tool the upstream lacks is dropped with a warning, not refused.
    if (name !== 'gemini')
      t.same(
        warnings(codec, { gemini: { 'tools.urlContext': {} } }),
        ['tools.urlContext'],
        'an unknown offered tool: dropped with a warning',
      );
  });
}
