import t from 'tap';
import { assertProviderKeyRejection } from '../openai-key-rejected.ts';
import {
  openaiChatClientCodec as client,
  openaiChatUpstreamCodec as upstream,
} from '../../../adapters/openai-chat/index.ts';
import { GatewayError, type ErrorKind } from '../../../src/ir/gateway-error.ts';

t.test('encodeError: OpenAI types and codes per kind', async (t) => {
  const cases: Array<[ErrorKind, string | null, number, string, string | null]> = [
    ['invalid-request', 'temperature', 400, 'invalid_request_error', null],
    ['authentication', null, 401, 'authentication_error', 'invalid_api_key'],
    ['permission', 'model', 403, 'permission_error', null],
    ['not-found', 'model', 404, 'invalid_request_error', 'model_not_found'],
    ['payload-too-large', null, 413, 'invalid_request_error', null],
    ['rate-limit', null, 429, 'rate_limit_error', 'rate_limit_exceeded'],
    ['upstream', null, 502, 'server_error', null],
    ['overloaded', null, 503, 'server_error', null],
    ['timeout', null, 504, 'server_error', null],
    ['internal', null, 500, 'server_error', null],
  ];
  for (const [kind, param, status, type, code] of cases) {
    const e = client.encodeError(new GatewayError(kind, `msg ${kind}`, { param }));
    t.equal(e.status, status, kind);
    t.strictSame(e.body, { error: { message: `msg ${kind}`, type, param, code } }, kind);
    t.equal(e.headers, undefined, 'no headers without retryAfter');
  }
});

t.test('encodeError: retry-after header when the error has one', async (t) => {
  const e = client.encodeError(new GatewayError('rate-limit', 'slow down', { retryAfter: 7 }));
  t.strictSame(e.headers, { 'retry-after': '7' });
});

t.test('decodeError: status picks the kind, message says upstream, param kept', async (t) => {
  const e = upstream.decodeError(
    400,
    {
      error: {
        message: "Invalid value for 'temperature'",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'invalid_value',
      },
    },
    {},
  );
  t.equal(e.kind, 'invalid-request');
  t.equal(e.status, 400);
  t.equal(e.param, 'temperature');
  t.match(e.message, /^openai-chat upstream error: Invalid value for 'temperature'/);
  t.equal(upstream.decodeError(404, { error: { message: 'The model `x` does not exist' } }, {}).kind, 'not-found');
  t.equal(upstream.decodeError(500, { error: { message: 'boom', type: 'server_error' } }, {}).kind, 'internal');
  t.equal(upstream.decodeError(503, 'Service Unavailable', {}).kind, 'overloaded');
  t.match(upstream.decodeError(502, '<html>bad gateway</html>', {}).message, /bad gateway/);
});

t.test('decodeError: retry-after in seconds, retry-after-ms preferred', async (t) => {
  t.equal(
    upstream.decodeError(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '20' }).retryAfter,
    20,
  );
  const e = upstream.decodeError(
    429,
    { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
    { 'retry-after': '20', 'retry-after-ms': '1500' },
  );
  t.equal(e.kind, 'rate-limit');
  t.equal(e.retryAfter, 2);
  t.equal(upstream.decodeError(429, {}, {}).retryAfter, undefined);
});

t.test("decodeError: 401/403 mean polygate's provider key is bad: 502, key never echoed", async (t) => {
  const message = 'Incorrect API key provided: sk-proj-SECRET123. You can find your API key at …';
  assertProviderKeyRejection(t, upstream, message, 'SECRET123');
});
