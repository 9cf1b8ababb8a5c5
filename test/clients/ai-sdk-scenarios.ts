// The Vercel AI SDK (`ai` 7) as an application would use it against polygate: each provider
// package pointed at polygate's base URL, and three calls every app makes (plain text, a streamed
// tool round trip, structured output). Shared by test/clients/ai-sdk.test.ts (through polygate on
// every upstream) and test/clients/capture-sdks.ts (what each provider sends, stored as fixtures).
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import {
  generateText,
  jsonSchema,
  Output,
  stepCountIs,
  streamText,
  tool,
  type JSONSchema7,
  type LanguageModel,
} from 'ai';
import type { Reply, Responder } from '../emulators/emulator-types.ts';
import { offeredTools } from './tool-responder.ts';

export type SdkProvider = 'anthropic' | 'openai-chat' | 'openai-responses' | 'google';
export const sdkProviders: SdkProvider[] = ['anthropic', 'openai-chat', 'openai-responses', 'google'];

/** The provider's model for `model` at polygate's (or an emulator's) root URL, as docs/clients.md says. */
export function sdkModel(provider: SdkProvider, root: string, apiKey: string, model: string): LanguageModel {
  switch (provider) {
    case 'anthropic':
      return createAnthropic({ baseURL: `${root}/v1`, apiKey })(model);
    case 'openai-chat':
      return createOpenAI({ baseURL: `${root}/v1`, apiKey }).chat(model);
    case 'openai-responses':
      return createOpenAI({ baseURL: `${root}/v1`, apiKey }).responses(model);
    case 'google':
      return createGoogle({ baseURL: `${root}/v1beta`, apiKey })(model);
    default: {
      const never: never = provider;
      throw new Error(`unknown provider ${String(never)}`);
    }
  }
}

/** The wire format each provider speaks: its same-format upstream is the relayed route. */
export const sdkFormat: Record<SdkProvider, 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini'> = {
  anthropic: 'anthropic',
  'openai-chat': 'openai-chat',
  'openai-responses': 'openai-responses',
  google: 'gemini',
};

export const TEXT_PROMPT = 'say hello back';

export async function plainText(model: LanguageModel): Promise<{ text: string; finishReason: string }> {
  const r = await generateText({ model, prompt: TEXT_PROMPT, maxRetries: 0 });
  return { text: r.text, finishReason: r.finishReason };
}

/** Streams a turn that must call `lookup` (forced on the first step), runs it, and answers. */
export async function streamedToolRoundTrip(
  model: LanguageModel,
  marker: string,
): Promise<{
  text: string;
  calls: Array<{ name: string; input: unknown }>;
  executed: number;
  steps: number;
  deltas: number;
}> {
  let executed = 0;
  const lookup = tool({
    description: 'Looks up the code word for a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    }),
    execute: async () => {
      executed++;
      return { codeWord: marker };
    },
  });
  const result = streamText({
    model,
    prompt: 'What is the code word for Oslo? Use the lookup tool.',
    tools: { lookup },
    stopWhen: stepCountIs(2),
    // Forced on the first step so the built-in echo upstream calls it too; free afterwards.
    prepareStep: ({ stepNumber }) => (stepNumber === 0 ? { toolChoice: 'required' } : { toolChoice: 'auto' }),
    maxRetries: 0,
  });
  let deltas = 0;
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') deltas++;
    if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(JSON.stringify(part.error));
  }
  const steps = await result.steps;
  const calls = steps.flatMap((s) => s.toolCalls.map((c) => ({ name: c.toolName, input: c.input })));
  return { text: await result.text, calls, executed, steps: steps.length, deltas };
}

export type City = { name: string; population: number; coastal: boolean };
// Typed as the AI SDK's own schema type (JSON Schema 7, mutable arrays), not `as const`.
export const citySchema: JSONSchema7 = {
  type: 'object',
  properties: { name: { type: 'string' }, population: { type: 'integer' }, coastal: { type: 'boolean' } },
  required: ['name', 'population', 'coastal'],
  additionalProperties: false,
};
/** What the scripted upstreams answer; echo answers some schema-valid object instead. */
export const OSLO: City = { name: 'Oslo', population: 709000, coastal: true };

export async function structuredOutput(model: LanguageModel): Promise<City> {
  const r = await generateText({
    model,
    prompt: 'Describe Oslo as a city record.',
    output: Output.object({ schema: jsonSchema<City>(citySchema), name: 'city' }),
    maxRetries: 0,
  });
  return r.output;
}

/**
 * The upstream side of the three calls on an emulator: the tool call on a first `lookup` turn,
 * the marker once the result came back, the city record for structured output (through the
 * `json` tool when the provider asks for one, as @ai-sdk/anthropic may), and the default echo
 * for plain text.
 */
export function sdkResponder(marker: string): Responder {
  return (req): Reply | undefined => {
    const raw = req.raw ?? JSON.stringify(req.body);
    const tools = offeredTools(req.body);
    if (raw.includes(marker)) return { kind: 'text', text: `The code word is ${marker}.` };
    if (tools.some((t) => t.name === 'lookup'))
      return { kind: 'tool', name: 'lookup', args: JSON.stringify({ city: 'Oslo' }) };
    if (tools.some((t) => t.name === 'json')) return { kind: 'tool', name: 'json', args: JSON.stringify(OSLO) };
    if (raw.includes('Describe Oslo')) return { kind: 'text', text: JSON.stringify(OSLO) };
    return undefined;
  };
}
