// Reasoning on Bedrock Converse (docs/providers.md, "Bedrock"). Converse has no reasoning field of
// its own: Claude models take Anthropic's `thinking` (and `output_config.effort` for adaptive
// thinking) in `additionalModelRequestFields`, with the same budget rules as Anthropic's API, so
// the Anthropic encoder's `thinkingOf` decides them. Reasoning comes back as `reasoningContent`
// blocks (`reasoningText` with Claude's signature, or `redactedContent` bytes); Anthropic's
// signatures are valid on every platform that serves Claude, so they carry the origin
// 'anthropic-messages' and go back to Converse (or Anthropic's API) in later turns.
import { thinkingOf } from '../../../../adapters/anthropic-messages/encode-messages-upstream-request.ts';
import type { WarningSink } from '../../../../adapters/shared/chat-adapter.ts';
import type { ChatRequest, ReasoningPart } from '../../../ir/chat-request.ts';

type Json = Record<string, unknown>;

/** Claude on Bedrock: a model id, inference profile (`us.anthropic.claude-…`) or ARN naming Claude. */
export const isClaudeModel = (model: string): boolean => /anthropic|claude/i.test(model);

export type ConverseReasoning = {
  /** What goes in `additionalModelRequestFields` (`thinking`, `output_config`). */
  fields: Json;
  /** The output limit thinking needs (the budget counts toward it), when it changes the request's. */
  maxTokens?: number;
  /** Whether thinking is on: Claude then refuses temperature, low top_p and top_k. */
  thinking: boolean;
};

/** The request's reasoning setting as Converse takes it for `model`. */
export function converseReasoning(req: ChatRequest, model: string, warn: WarningSink): ConverseReasoning {
  if (!req.reasoning) return { fields: {}, thinking: false };
  if (!isClaudeModel(model)) {
    if (req.reasoning.enabled)
      warn('reasoning', `polygate asks only Claude models on Bedrock Converse to reason ('${model}' is not); dropped`);
    return { fields: {}, thinking: false };
  }
  const t = thinkingOf(req, warn);
  const fields: Json = {};
  if (t.thinking) fields.thinking = t.thinking;
  if (t.effort !== undefined) fields.output_config = { effort: t.effort };
  const type = (t.thinking as { type?: unknown } | undefined)?.type;
  const thinking = type === 'enabled' || type === 'adaptive';
  return { fields, ...(thinking && t.maxTokens !== req.maxTokens ? { maxTokens: t.maxTokens } : {}), thinking };
}

/** An earlier turn's reasoning as a Converse block: only Claude's signed or redacted reasoning goes back. */
export function encodeReasoningBlock(p: ReasoningPart, field: string, warn: WarningSink): Json[] {
  if (p.origin === 'anthropic-messages' && p.redacted !== undefined)
    return [{ reasoningContent: { redactedContent: p.redacted } }];
  if (p.origin === 'anthropic-messages' && p.signature)
    return [{ reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } }];
  warn(
    field,
    `reasoning ${p.origin !== 'anthropic-messages' ? `from '${p.origin}'` : 'without a signature'} cannot be sent to Bedrock Converse; dropped`,
  );
  return [];
}

/** A `reasoningContent` block of an answer → the IR's reasoning part. */
export function decodeReasoningBlock(r: Json): ReasoningPart[] {
  // redactedContent is a blob: base64 in AWS's JSON, kept as it came so it goes back byte for byte.
  if (typeof r.redactedContent === 'string')
    return [{ type: 'reasoning', text: '', redacted: r.redactedContent, origin: 'anthropic-messages' }];
  const t = r.reasoningText;
  if (typeof t !== 'object' || t === null) return [];
  const { text, signature } = t as Json;
  if (typeof text !== 'string') return [];
  return [
    {
      type: 'reasoning',
      text,
      ...(typeof signature === 'string' && signature !== '' ? { signature } : {}),
      origin: 'anthropic-messages',
    },
  ];
}
