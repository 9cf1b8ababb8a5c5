// The client error body: {error: {message, type, param, code}} with OpenAI's types, the status of
// the error, and retry-after when the error carries one.
import t from 'tap';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { responsesClientCodec } from '../../../adapters/openai-responses/index.ts';

const enc = (e: GatewayError) => responsesClientCodec.encodeError(e);

t.test('each kind maps onto OpenAI status, type and code', async (t) => {
  t.same(enc(new GatewayError('invalid-request', "Invalid 'temperature'", { param: 'temperature' })), {
    status: 400,
    body: {
      error: { message: "Invalid 'temperature'", type: 'invalid_request_error', param: 'temperature', code: null },
    },
  });
  t.same(enc(new GatewayError('authentication', 'bad key')).body, {
    error: { message: 'bad key', type: 'authentication_error', param: null, code: 'invalid_api_key' },
  });
  t.equal(enc(new GatewayError('authentication', 'bad key')).status, 401);
  t.same(enc(new GatewayError('permission', 'no')).body, {
    error: { message: 'no', type: 'permission_error', param: null, code: null },
  });
  t.same(enc(new GatewayError('not-found', 'no model', { param: 'model' })).body, {
    error: { message: 'no model', type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
  });
  const rl = enc(new GatewayError('rate-limit', 'slow', { retryAfter: 2.5 }));
  t.same(rl, {
    status: 429,
    body: { error: { message: 'slow', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } },
    headers: { 'retry-after': '3' },
  });
  for (const kind of ['upstream', 'overloaded', 'timeout', 'unavailable', 'internal'] as const) {
    const e = enc(new GatewayError(kind, 'x'));
    t.equal((e.body as { error: { type: string } }).error.type, 'server_error', kind);
    t.equal(e.status, new GatewayError(kind, 'x').status);
  }
});
