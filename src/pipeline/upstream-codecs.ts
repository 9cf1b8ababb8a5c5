import { anthropicUpstreamCodec } from '../../adapters/anthropic-messages/index.ts';
import { messagesRelay } from '../../adapters/anthropic-messages/messages-relay.ts';
import { geminiUpstreamCodec } from '../../adapters/gemini/index.ts';
import { geminiRelay } from '../../adapters/gemini/gemini-relay.ts';
import { chatRelay } from '../../adapters/openai-chat/chat-relay.ts';
import { openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import { responsesUpstreamCodec } from '../../adapters/openai-responses/index.ts';
import { responsesRelay } from '../../adapters/openai-responses/responses-relay.ts';
import type { ChatFormat, ChatUpstreamCodec, RelayTarget } from '../../adapters/shared/chat-adapter.ts';

/** Every chat wire format, as polygate speaks it to upstreams. */
const codecs: Record<ChatFormat, ChatUpstreamCodec> = {
  'anthropic-messages': anthropicUpstreamCodec,
  'openai-chat': openaiChatUpstreamCodec,
  'openai-responses': responsesUpstreamCodec,
  gemini: geminiUpstreamCodec,
};

const relays: Record<ChatFormat, RelayTarget> = {
  'anthropic-messages': messagesRelay,
  'openai-chat': chatRelay,
  'openai-responses': responsesRelay,
  gemini: geminiRelay,
};

export const upstreamCodecOf = (format: ChatFormat): ChatUpstreamCodec => codecs[format];
export const relayOf = (format: ChatFormat): RelayTarget => relays[format];
