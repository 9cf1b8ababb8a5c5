// The wire formats polygate speaks (docs/architecture.md, "The format module"). Route
// registration, format detection, authentication, error encoding, the upstream codecs and the
// metrics iterate this list: adding a format is its adapters/<format>/ folder and one line here.
import { anthropicMessages } from '../../../adapters/anthropic-messages/index.ts';
import { gemini } from '../../../adapters/gemini/index.ts';
import { openaiAudio } from '../../../adapters/openai-audio/index.ts';
import { openaiChat } from '../../../adapters/openai-chat/index.ts';
import { openaiResponses } from '../../../adapters/openai-responses/index.ts';
import { tune } from '../../../adapters/tune/index.ts';
import type { ChatClientCodec } from '../../../adapters/shared/chat-adapter.ts';
import {
  servesProvider,
  type FormatModule,
  type IdSource,
  type UpstreamSide,
} from '../../../adapters/shared/format-module.ts';
import { randomHex } from '../ids/random-pool.ts';

export type { FormatModule } from '../../../adapters/shared/format-module.ts';

/** A format its clients speak to the chat pipeline. */
export type ChatFormatModule = FormatModule & { readonly client: ChatClientCodec };

export const isChatFormat = (f: FormatModule): f is ChatFormatModule => f.client !== undefined;

/**
 * The ids and time a codec mints objects with (`resp_…`, `created_at`), for a codec that takes
 * them: drawn from the process's pool of random bytes (src/infra/ids/random-pool.ts), so the
 * adapter itself keeps no state.
 */
const serverIds: IdSource = {
  newId: (prefix) => `${prefix}_${randomHex(24)}`,
  now: () => Math.floor(Date.now() / 1000),
};
const withServerIds = (f: FormatModule): FormatModule => (f.clientFor ? { ...f, client: f.clientFor(serverIds) } : f);

/** Order breaks ties between formats claiming a shared path (`/v1/models`): Gemini's marks first. */
export const formats: readonly FormatModule[] = [
  tune,
  openaiAudio,
  gemini,
  withServerIds(openaiResponses),
  anthropicMessages,
  openaiChat,
];

/** The format whose error shape answers paths no format claims (OpenAI's, the most common client). */
export const fallbackFormat: FormatModule = openaiChat;

/** A format by its name; undefined for names not in the list. */
export const formatNamed = (name: string): FormatModule | undefined => formats.find((f) => f.name === name);

/** The upstream side of the format a chat provider config speaks (undefined: not a chat upstream). */
export function upstreamFormatOf(
  type: string,
  api: string | undefined,
): (FormatModule & { upstream: UpstreamSide }) | undefined {
  for (const f of formats)
    if (f.upstream && servesProvider(f, type, api)) return f as FormatModule & { upstream: UpstreamSide };
  return undefined;
}
