// ChatRequest.serviceTier ↔ each format's words. Values from the SDK types: Anthropic
// `'auto' | 'standard_only'` (node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts),
// OpenAI `'auto' | 'default' | 'flex' | 'scale' | 'priority'`
// (node_modules/openai/resources/chat/completions/completions.d.ts), Gemini
// `'unspecified' | 'flex' | 'standard' | 'priority'` (node_modules/@google/genai/dist/genai.d.ts).
import type { ServiceTier } from '../../src/ir/chat-request.ts';
import type { ChatFormat as TierFormat, WarningSink } from './chat-adapter.ts';

const openai: Record<ServiceTier, string | undefined> = {
  auto: 'auto',
  standard: 'default',
  flex: 'flex',
  priority: 'priority',
  scale: 'scale',
};
/** undefined: the format has no such tier. */
const words: Record<TierFormat, Record<ServiceTier, string | undefined>> = {
  'anthropic-messages': {
    auto: 'auto',
    standard: 'standard_only',
    flex: undefined,
    priority: undefined,
    scale: undefined,
  },
  'openai-chat': openai,
  'openai-responses': openai,
  // Gemini has no `auto`: leaving the field out lets Google choose, which is what `auto` asks.
  gemini: { auto: undefined, standard: 'standard', flex: 'flex', priority: 'priority', scale: undefined },
};

/** The IR tier a wire word names; undefined for a word outside the IR (the decoder keeps it in its namespace). */
export function decodeServiceTier(format: TierFormat, word: unknown): ServiceTier | undefined {
  // Most requests name no tier: no keys to list.
  if (word === undefined) return undefined;
  const table = words[format];
  return (Object.keys(table) as ServiceTier[]).find((t) => table[t] !== undefined && table[t] === word);
}

/** The format's word for a tier; undefined when it has none. */
export const serviceTierWord = (tier: ServiceTier, format: TierFormat): string | undefined => words[format][tier];

/** The wire word for the request's tier; a tier the format cannot name is dropped with a warning. */
export function encodeServiceTier(
  tier: ServiceTier | undefined,
  format: TierFormat,
  wireField: string,
  warn: WarningSink,
): string | undefined {
  if (tier === undefined) return undefined;
  const word = serviceTierWord(tier, format);
  if (word === undefined && !(format === 'gemini' && tier === 'auto'))
    warn(wireField, `service tier '${tier}' has no equivalent on the ${format} upstream; dropped`);
  return word;
}
