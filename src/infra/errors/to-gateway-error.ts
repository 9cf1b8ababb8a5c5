import { GatewayError } from '../../ir/gateway-error.ts';

/**
 * Anything thrown while serving a request, as a GatewayError. Errors of the body parser and of
 * Koa carry an HTTP status; any other error is internal and its message is not shown to clients
 * (it may hold paths or upstream details), only logged.
 */
export function toGatewayError(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  const status = (e as { status?: unknown }).status;
  const type = (e as { type?: unknown }).type;
  if (status === 413 || type === 'entity.too.large')
    return new GatewayError('payload-too-large', 'request body is larger than this gateway accepts');
  if (type === 'entity.parse.failed' || (status === 400 && /json/i.test(String((e as Error).message)))) {
    return new GatewayError('invalid-request', 'request body is not valid JSON');
  }
  if (status === 415 || type === 'encoding.unsupported')
    return new GatewayError('invalid-request', 'unsupported content encoding or type', { status: 415 });
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new GatewayError('invalid-request', String((e as Error).message), { status });
  return new GatewayError('internal', 'internal error');
}
