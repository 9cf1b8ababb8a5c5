// A failed system program is logged with its stderr tail, which the client never sees (it may
// name temporary paths); the client gets the GatewayError message only.
import type { Logger } from 'pino';
import { ToolError } from './run-tool.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

export function logToolFailure(log: Logger, ctx: GatewayContext, e: unknown): void {
  const cause = (e as { cause?: unknown }).cause;
  if (!(cause instanceof ToolError) || cause.aborted) return;
  log.error(
    {
      request_id: ctx.state.requestId,
      tool: cause.tool,
      exit_code: cause.exitCode,
      timed_out: cause.timedOut,
      stderr: cause.stderr,
    },
    `local-speech: ${cause.message}`,
  );
}
