// Claude's thinking on the Bedrock Converse emulator, checked as Bedrock passes Claude's own checks
// through (ValidationException "The model returned the following errors: …"): the `thinking`
// setting in additionalModelRequestFields (budget at least 1024 and below maxTokens, no
// temperature but 1), and earlier reasoning sent back as `reasoningContent` whose signature or
// redacted bytes this emulator issued, a final assistant turn with a tool use opening with it.
import { type Json, isObject } from './emulator-server.ts';
const modelSaid = (m: string): string => `The model returned the following errors: ${m}`;

/** The signatures and redacted blobs the emulator handed out: only those are valid in a later turn. */
export type IssuedReasoning = Set<string>;

export function converseThinkingProblem(body: Json, issued: IssuedReasoning): string | undefined {
  const fields = isObject(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
  const thinking = isObject(fields.thinking) ? fields.thinking : undefined;
  const inference = isObject(body.inferenceConfig) ? body.inferenceConfig : {};
  const on = thinking?.type === 'enabled' || thinking?.type === 'adaptive';
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024)
      return modelSaid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (typeof inference.maxTokens === 'number' && inference.maxTokens <= budget)
      return modelSaid('`max_tokens` must be greater than `thinking.budget_tokens`.');
  } else if (thinking && !['adaptive', 'disabled'].includes(String(thinking.type)))
    return modelSaid(
      `thinking.type: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags`,
    );
  if (on && inference.temperature !== undefined && inference.temperature !== 1)
    return modelSaid('`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode.');
  const messages = body.messages as Json[];
  for (const [i, m] of messages.entries())
    for (const [j, b] of (m.content as Json[]).entries()) {
      if (!isObject(b.reasoningContent)) continue;
      const r = b.reasoningContent;
      const token = isObject(r.reasoningText) ? r.reasoningText.signature : r.redactedContent;
      if (m.role !== 'assistant' || typeof token !== 'string' || !issued.has(token))
        return modelSaid(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
    }
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  const blocks = (lastAssistant?.content ?? []) as Json[];
  if (on && blocks.some((b) => isObject(b.toolUse)) && !isObject(blocks[0]?.reasoningContent))
    return modelSaid(
      'Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.',
    );
  return undefined;
}

let signed = 0;
/**
 * With thinking on, Claude thinks before it calls a tool (and Bedrock then wants that reasoning
 * back ahead of the tool use): the reasoning a scripted tool reply opens with, its signature issued.
 */
export function reasoningBeforeTool(
  body: Json,
  issued: IssuedReasoning,
): { text: string; signature: string } | undefined {
  const fields = isObject(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
  const type = isObject(fields.thinking) ? fields.thinking.type : undefined;
  if (type !== 'enabled' && type !== 'adaptive') return undefined;
  const signature = `EmulatorSig${++signed}${crypto.randomUUID().replace(/-/g, '')}`;
  issued.add(signature);
  return { text: 'The tool will tell me.', signature };
}
