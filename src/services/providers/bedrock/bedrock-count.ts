// Bedrock's CountTokens (docs/providers.md, "Bedrock";
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html): the body
// counted is the one the route would send, `{input: {invokeModel: {body}}}` with the InvokeModel
// body as a blob (base64 in AWS's JSON), or `{input: {converse: {...}}}` with Converse's fields
// that hold input. The answer is `{inputTokens}`.
import { GatewayError } from '../../../ir/gateway-error.ts';

type Json = Record<string, unknown>;

/** InvokeModel bodies need max_tokens; a count request (Messages count_tokens) has none. */
const countedMaxTokens = 1;

export function invokeCountBody(invokeBody: Json): Json {
  const body = 'max_tokens' in invokeBody ? invokeBody : { ...invokeBody, max_tokens: countedMaxTokens };
  return { input: { invokeModel: { body: Buffer.from(JSON.stringify(body)).toString('base64') } } };
}

/** Converse's input fields of a Converse request body (inferenceConfig and the like are not counted). */
export function converseCountBody(converse: Json): Json {
  const input: Json = {};
  for (const k of ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'])
    if (converse[k] !== undefined) input[k] = converse[k];
  return { input: { converse: input } };
}

export function inputTokensOf(answer: unknown, provider: string): number {
  const n = (answer as { inputTokens?: unknown } | null)?.inputTokens;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw new GatewayError('upstream', `provider '${provider}' answered CountTokens without inputTokens`);
  return n;
}
