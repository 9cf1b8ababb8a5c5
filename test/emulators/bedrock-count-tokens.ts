// Bedrock's CountTokens (POST /model/{modelId}/count-tokens) on the emulator
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html): the body is
// `{input: {invokeModel: {body}}}`, the InvokeModel body as a blob (base64 in AWS's JSON), or
// `{input: {converse: {messages, system, toolConfig, additionalModelRequestFields}}}`; each is
// checked as its own operation checks it, and the answer is `{inputTokens}`.
import type { ServerResponse } from 'node:http';
import { bedrockError } from './bedrock-upstream.ts';
import { converseProblem } from './bedrock-converse.ts';
import { sendJson, isObject } from './emulator-server.ts';

/** The emulator's count: a stable function of what was counted, so a test can tell it from an estimate. */
export const emulatorCount = (counted: unknown): number => 7 + Math.ceil(JSON.stringify(counted).length / 3);

/** Answers a CountTokens call; returns the count sent, or undefined after an error. */
export function countTokensAnswer(res: ServerResponse, body: unknown): number | undefined {
  const input = isObject(body) && isObject(body.input) ? body.input : undefined;
  let counted: unknown;
  if (input && isObject(input.invokeModel) && typeof input.invokeModel.body === 'string') {
    let inner: unknown;
    try {
      inner = JSON.parse(Buffer.from(input.invokeModel.body, 'base64').toString('utf8'));
    } catch {
      inner = undefined;
    }
    if (!isObject(inner) || typeof inner.anthropic_version !== 'string' || !Array.isArray(inner.messages))
      return void bedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request, please reformat your input and try again.',
      );
    if ('model' in inner || 'stream' in inner)
      return void bedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request: #: extraneous key [model] is not permitted',
      );
    counted = { system: inner.system, messages: inner.messages, tools: inner.tools };
  } else if (input && isObject(input.converse)) {
    const problem = converseProblem(input.converse);
    if (problem) return void bedrockError(res, 400, 'ValidationException', problem);
    const c = input.converse;
    counted = { system: c.system, messages: c.messages, tools: c.toolConfig };
  } else {
    return void bedrockError(
      res,
      400,
      'ValidationException',
      "1 validation error detected: Value at 'input' failed to satisfy constraint: Member must not be null",
    );
  }
  const n = emulatorCount(counted);
  sendJson(res, 200, { inputTokens: n }, { 'x-amzn-requestid': crypto.randomUUID() });
  return n;
}
