// Knobs both OpenAI formats (Chat Completions, Responses) name the same way: IR fields, so a Chat
// client's prompt_cache_key reaches a Responses upstream and back (docs/architecture.md
// "Cross-format data"). Anthropic and Gemini have no such fields: dropped with a warning.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { WarningSink } from './chat-adapter.ts';

const knobs = [
  ['prompt_cache_key', 'promptCacheKey'],
  ['prompt_cache_retention', 'promptCacheRetention'],
  ['safety_identifier', 'safetyIdentifier'],
] as const;

/** Moves the shared knobs a decoder kept in its namespace (`own`) onto the IR. */
export function liftOpenAIKnobs(req: ChatRequest, own: Record<string, unknown>): void {
  for (const [wire, field] of knobs) {
    const v = own[wire];
    if (typeof v !== 'string') continue;
    req[field] = v;
    delete own[wire];
  }
}

/** The shared knobs in an OpenAI request body. */
export function encodeOpenAIKnobs(req: ChatRequest, body: Record<string, unknown>): void {
  // Indexed, not destructured: every translated OpenAI call passes here, and unoptimized code builds an iterator per pair.
  for (let i = 0; i < knobs.length; i++) {
    const wire = knobs[i][0];
    const field = knobs[i][1];
    if (req[field] !== undefined) body[wire] = req[field];
  }
}

/** For a format without them: each set knob named in a warning (a safety id that is also the user id is carried as the user). */
export function dropOpenAIKnobs(req: ChatRequest, format: string, warn: WarningSink): void {
  for (const [wire, field] of knobs) {
    if (req[field] === undefined || (field === 'safetyIdentifier' && req[field] === req.user)) continue;
    warn(wire, `the ${format} upstream has no such field; dropped`);
  }
}
