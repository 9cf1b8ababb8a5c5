// ChatRequest.verbosity: OpenAI Chat `verbosity` and Responses `text.verbosity` share the words.
import type { Verbosity } from '../../src/ir/chat-request.ts';

const verbosities: readonly Verbosity[] = ['low', 'medium', 'high'];

export const isVerbosity = (v: unknown): v is Verbosity =>
  typeof v === 'string' && (verbosities as readonly string[]).includes(v);
