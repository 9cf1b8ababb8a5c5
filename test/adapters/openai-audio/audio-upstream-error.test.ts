// Upstream error answers become polygate errors: the upstream's status picks the kind, its
// param survives, and a refused provider key is the gateway's fault (502), never echoed.
import t from 'tap';
import { decodeAudioUpstreamError } from '../../../adapters/openai-audio/index.ts';

t.test('a 400 keeps the upstream’s message and param', async (t) => {
  const e = decodeAudioUpstreamError(400, {
    error: { message: "Invalid value for 'voice'.", type: 'invalid_request_error', param: 'voice', code: null },
  });
  t.equal(e.status, 400);
  t.equal(e.param, 'voice');
  t.match(e.message, /Invalid value for 'voice'/);
});

t.test('429 with retry-after', async (t) => {
  const e = decodeAudioUpstreamError(429, { error: { message: 'Rate limit reached' } }, 7);
  t.equal(e.kind, 'rate-limit');
  t.equal(e.retryAfter, 7);
});

t.test('401 and 403 are a gateway configuration fault', async (t) => {
  for (const status of [401, 403]) {
    const e = decodeAudioUpstreamError(status, { error: { message: 'Incorrect API key provided: sk-up***-key.' } });
    t.equal(e.status, 502);
    t.notMatch(e.message, /sk-up/);
  }
});

t.test('lenient bodies: plain text and {detail}', async (t) => {
  t.match(decodeAudioUpstreamError(500, 'upstream exploded').message, /upstream exploded/);
  t.match(decodeAudioUpstreamError(422, { detail: 'bad file' }).message, /bad file/);
  t.equal(decodeAudioUpstreamError(503, '').kind, 'overloaded');
});
