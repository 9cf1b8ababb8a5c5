// What the matrix asks of every client family. A driver speaks through the family's official SDK
// only, the way an application would, and hands back what that application would see.
import type { JsonSchema } from '../fixtures.ts';

export type Family = 'messages' | 'chat' | 'responses' | 'gemini';

export type ToolDef = { name: string; description: string; schema: JsonSchema };

/** `usage`: the prompt and answer token counts in the family's own usage fields. */
export type TextOutcome = { text: string; finish: string; model: string; usage: { input: number; output: number } };

export type StreamOutcome = { deltas: string[]; text: string; finish: string };

export type ToolCallOutcome = {
  /** The argument pieces as the client received them (Gemini: one JSON text per whole functionCall). */
  pieces: string[];
  call: { id?: string; name: string; args: Record<string, unknown> };
  finish: string;
  /** Whatever the driver needs to send the conversation back in the next turn. */
  history: unknown;
};

export type ReasoningOutcome = {
  /** Reasoning text the client was shown (undefined where the family shows none). */
  thinking: string | undefined;
  /** The opaque token the client holds for this reasoning (signature, encrypted content, thoughtSignature). */
  token: string | undefined;
  text: string;
  history: unknown;
};

export type ErrorOutcome = { status: number; body: unknown; headers: Headers | undefined };

export interface Driver {
  readonly family: Family;
  /** Tool arguments arrive as streamed strings (false: whole objects, as Gemini sends them). */
  readonly streamsArgumentText: boolean;
  /** The family's words for a plain stop and a tool-call stop. */
  readonly stopWords: { stop: string; tool: string };
  /** The family's error word (type / code / status) for each upstream failure; several when pass-through relays the vendor's own. */
  readonly errorWords: { 429: string[]; 500: string[] };
  /** The family's error word in an error body. */
  errorWord(body: unknown): string | undefined;

  text(model: string, system: string, prompt: string): Promise<TextOutcome>;
  stream(model: string, prompt: string): Promise<StreamOutcome>;
  /** Streams a forced call of `tool`. */
  toolCall(model: string, prompt: string, tool: ToolDef): Promise<ToolCallOutcome>;
  /** Sends the conversation back with the tool's result; the answer text. */
  toolResultTurn(model: string, prev: ToolCallOutcome, tool: ToolDef, result: string): Promise<{ text: string }>;
  image(model: string, pngBase64: string, prompt: string): Promise<{ text: string }>;
  /** Structured output in the family's own form; the answer text. */
  jsonSchema(model: string, schema: JsonSchema, prompt: string): Promise<{ text: string }>;
  /** Streams an answer with reasoning on (budget 2048 / effort low). */
  reasoning(model: string, prompt: string): Promise<ReasoningOutcome>;
  /** Sends the reasoning turn back, as the family's clients do, and asks again. */
  reasoningContinue(model: string, prev: ReasoningOutcome, prompt: string): Promise<{ text: string }>;
  error(model: string): Promise<ErrorOutcome>;
}
