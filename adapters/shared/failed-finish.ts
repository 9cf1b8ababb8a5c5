// An answer that ended in failure (IR finish `error`: Gemini MALFORMED_FUNCTION_CALL,
// UNEXPECTED_TOOL_CALL, MISSING_THOUGHT_SIGNATURE…). Responses can say so (status `failed`) and
// Gemini has its own word, but Messages and Chat Completions have no failed stop reason: their
// nearest honest equivalent is an error (a 502 before the first byte, the in-stream error after),
// never a plain `end_turn` / `stop` that would pass an unusable answer off as complete.
import type { ChatFinish } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';

export function failedFinish(finish: ChatFinish): GatewayError | undefined {
  if (finish.reason !== 'error') return undefined;
  return new GatewayError(
    'upstream',
    `the upstream model failed to produce a usable answer (finish reason ${finish.raw || 'error'})`,
  );
}
