// The upstream codec a chat provider config speaks: its format's codec (src/infra/formats/formats.ts),
// in the dialect of an OpenAI-compatible server when `compat` names one, or as Azure OpenAI streams
// it (docs/providers.md).
import { compatChatCodec } from '../../../adapters/openai-chat/chat-compat.ts';
import type { ChatUpstreamCodec } from '../../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';
import { upstreamFormatOf } from '../../infra/formats/formats.ts';
import { azureChatCodec } from './azure-openai.ts';

/** Undefined for providers of other kinds (tasks, speech, built-ins). */
export function chatCodecOf(p: ProviderConfig): ChatUpstreamCodec | undefined {
  const codec = upstreamFormatOf(p.type, p.api)?.upstream.codec;
  if (!codec || codec.format !== 'openai-chat') return codec;
  if (p.type === 'azure-openai') return azureChatCodec(codec);
  return p.compat === undefined ? codec : compatChatCodec(codec, p.compat);
}
