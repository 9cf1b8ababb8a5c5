// Errors: the client body in the Messages shape with the spec's type words, and upstream
// errors decoded with their kind, retry-after and a message naming where they came from.
import t from 'tap';
import { anthropicClientCodec, anthropicUpstreamCodec } from '../../../adapters/anthropic-messages/index.ts';
import { GatewayError, type ErrorKind } from '../../../src/ir/gateway-error.ts';

t.test('encodeError: status, {type: error, error: {type, message, code}} per kind', async (t) => {
  const cases: Array<[ErrorKind, number, string]> = [
    ['invalid-request', 400, 'invalid_request_error'],
    ['authentication', 401, 'authentication_error'],
    ['permission', 403, 'permission_error'],
    ['not-found', 404, 'not_found_error'],
    ['payload-too-large', 413, 'request_too_large'],
    ['rate-limit', 429, 'rate_limit_error'],
    ['internal', 500, 'server_error'],
    ['upstream', 502, 'server_error'],
    ['overloaded', 503, 'overloaded_error'],
    ['unavailable', 503, 'overloaded_error'],
    ['timeout', 504, 'timeout_error'],
  ];
  for (const [kind, status, type] of cases) {
    const enc = anthropicClientCodec.encodeError(new GatewayError(kind, `a ${kind} problem`));
    t.same(enc, { status, body: { type: 'error', error: { type, message: `a ${kind} problem`, code: type } } }, kind);
  }
});

t.test('encodeError: overridden statuses keep their class; retry-after becomes a header', async (t) => {
  t.equal(
    (
      anthropicClientCodec.encodeError(new GatewayError('invalid-request', 'bad type', { status: 415 })).body as {
        error: { type: string };
      }
    ).error.type,
    'invalid_request_error',
  );
  t.equal(
    (
      anthropicClientCodec.encodeError(new GatewayError('overloaded', 'busy', { status: 529 })).body as {
        error: { type: string };
      }
    ).error.type,
    'overloaded_error',
  );
  const limited = anthropicClientCodec.encodeError(new GatewayError('rate-limit', 'slow', { retryAfter: 12 }));
  t.same(limited.headers, { 'retry-after': '12' });
});

t.test('decodeError: Anthropic error bodies keep their message, prefixed, with the kind of the status', async (t) => {
  const body = (type: string, message: string) => ({ type: 'error', error: { type, message }, request_id: 'req_1' });
  const e429 = anthropicUpstreamCodec.decodeError(429, body('rate_limit_error', 'Number of requests exceeded'), {
    'retry-after': '30',
  });
  t.same(
    [e429.kind, e429.status, e429.retryAfter, e429.message],
    ['rate-limit', 429, 30, 'anthropic upstream: Number of requests exceeded'],
  );
  const e400 = anthropicUpstreamCodec.decodeError(400, body('invalid_request_error', 'messages: bad'), {});
  t.same([e400.kind, e400.status, e400.message], ['invalid-request', 400, 'anthropic upstream: messages: bad']);
  t.equal(anthropicUpstreamCodec.decodeError(529, body('overloaded_error', 'Overloaded'), {}).kind, 'overloaded');
  t.equal(anthropicUpstreamCodec.decodeError(500, body('api_error', 'Internal'), {}).status, 500);
  t.equal(anthropicUpstreamCodec.decodeError(504, 'gateway timeout', {}).kind, 'timeout');
  t.equal(anthropicUpstreamCodec.decodeError(404, body('not_found_error', 'model: x'), {}).kind, 'not-found');
  t.match(
    anthropicUpstreamCodec.decodeError(502, '<html>bad gateway</html>', {}).message,
    /anthropic upstream: <html>bad gateway<\/html>/,
  );
  t.match(anthropicUpstreamCodec.decodeError(503, '', {}).message, /status 503/);
  t.equal(
    anthropicUpstreamCodec.decodeError(429, body('rate_limit_error', 'x'), { 'retry-after': ['5'] }).retryAfter,
    5,
  );
});

t.test('decodeError: a rejected provider key is a 502 about the gateway credentials, never echoing them', async (t) => {
  for (const status of [401, 403]) {
    const err = anthropicUpstreamCodec.decodeError(
      status,
      { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key sk-ant-secret' } },
      {},
    );
    t.equal(err.kind, 'upstream');
    t.equal(err.status, 502);
    t.match(err.message, /rejected the gateway's provider credentials/);
    t.notMatch(err.message, /sk-ant-secret/);
  }
});
