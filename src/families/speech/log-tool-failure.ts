// A failed system program is logged with its stderr tail, which the client never sees (it may
// name temporary paths); the client gets the GatewayError message only.
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from '../../services/runtime/request-state.ts';
import { ToolError } from './run-tool.ts';

export function logToolFailure(log: Logger, ctx: Context, e: unknown): void {
  const cause = (e as { cause?: unknown }).cause;
  if (!(cause instanceof ToolError) || cause.aborted) return;
  log.error(
    {
      request_id: (ctx.state as RequestState).requestId,
      tool: cause.tool,
      exit_code: cause.exitCode,
      timed_out: cause.timedOut,
      stderr: cause.stderr,
    },
    `local-speech: ${cause.message}`,
  );
}
