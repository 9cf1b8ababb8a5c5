// OpenAI-shaped upstreams (chat completions, responses) answer a bad API key with 401 or 403 and a
// message that quotes the key: that is polygate's provider key, so the client gets a 502 that
// never echoes it.
import type { Test } from 'tap';
import type { ChatUpstreamCodec } from '../../adapters/shared/chat-adapter.ts';

export function assertProviderKeyRejection(t: Test, codec: ChatUpstreamCodec, message: string, secret: string): void {
  for (const status of [401, 403]) {
    const e = codec.decodeError(
      status,
      { error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } },
      {},
    );
    t.equal(e.kind, 'upstream');
    t.equal(e.status, 502);
    t.match(e.message, /rejected the gateway's credentials/);
    t.notOk(e.message.includes(secret), `the key is not echoed (${status})`);
  }
}
