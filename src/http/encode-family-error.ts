import { anthropicClientCodec } from '../../adapters/anthropic-messages/index.ts';
import { encodeGeminiError } from '../../adapters/gemini/gemini-error.ts';
import { openaiChatClientCodec } from '../../adapters/openai-chat/index.ts';
import type { EncodedError } from '../../adapters/shared/chat-adapter.ts';
import { encodeTuneError } from '../../adapters/tune/tune-error.ts';
import type { GatewayError } from '../ir/gateway-error.ts';
import type { Family } from './family.ts';

/** The error body each family's clients parse (README, "Families served"). */
export function encodeFamilyError(family: Family | undefined, err: GatewayError): EncodedError {
  switch (family) {
    case 'messages':
      return anthropicClientCodec.encodeError(err);
    case 'gemini':
      return encodeGeminiError(err);
    case 'tune':
      return encodeTuneError(err);
    // Speech, Responses and Chat Completions share OpenAI's {error: {message, type, param, code}}.
    case 'audio':
    case 'responses':
    case 'chat':
    case undefined:
      return openaiChatClientCodec.encodeError(err);
    default: {
      const never: never = family;
      return never;
    }
  }
}
