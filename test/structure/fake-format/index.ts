// A seventh wire format, small and made up, that exists only to show what adding a format takes:
// this folder and one entry in the list of formats (test/structure/seventh-format.test.ts). Like
// the real adapters it imports only src/ir and adapters/shared.
//
// The wire: POST /v7/fake/generate, key in `x-fake-key`, body {model, prompt, stream?}; the answer
// is {fake_text, fake_model}, a stream is `data: {"delta": ...}` lines ending with `data: {"done": true}`,
// and every error is {fake_error: {reason, field}}. Its model list is GET /v7/fake/models
// ({fake_models: [id…]}), and GET /v1/models too when the request carries `x-fake-key`: a path
// the real formats share, claimed by a header as Anthropic's `anthropic-version` claims it.
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import type { GatewayError } from '../../../src/ir/gateway-error.ts';
import { invalid } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import type {
  ChatClientCodec,
  ClientStreamEncoder,
  EncodedError,
  SseFrame,
} from '../../../adapters/shared/chat-adapter.ts';
import { headerValue, type FormatModule, type ModelDiscovery } from '../../../adapters/shared/format-module.ts';
import { bodyModelAndStream, bodyObject } from '../../../adapters/shared/routing-fields.ts';

function decodeRequest(body: unknown): ChatRequest {
  const b = bodyObject(body);
  const { model, stream } = bodyModelAndStream(b);
  if (typeof b.prompt !== 'string' || b.prompt === '') throw invalid('prompt', 'prompt: expected a non-empty string');
  return {
    model,
    system: [],
    messages: [{ role: 'user', parts: [{ type: 'text', text: b.prompt }] }],
    tools: [],
    sampling: {},
    stream,
    extensions: {},
  };
}

const textOf = (r: ChatResult): string => r.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

class FakeStreamEncoder implements ClientStreamEncoder {
  push(e: StreamEvent): SseFrame[] {
    if (e.type === 'text-delta') return [{ data: JSON.stringify({ delta: e.text }) }];
    if (e.type === 'finish') return [{ data: JSON.stringify({ done: true }) }];
    if (e.type === 'error')
      return [{ data: JSON.stringify({ fake_error: { reason: e.error.kind, field: e.error.param } }) }];
    return [];
  }
}

const encodeError = (err: GatewayError): EncodedError => ({
  status: err.status,
  body: { fake_error: { reason: err.kind, field: err.param } },
});

const client: ChatClientCodec = {
  format: 'fake-format',
  peekRequest: (body) => ({ ...bodyModelAndStream(bodyObject(body)), relayable: false }),
  decodeRequest,
  encodeResult: (result, request) => ({ fake_text: textOf(result), fake_model: request.model }),
  createStreamEncoder: () => new FakeStreamEncoder(),
  encodeError,
};

const models: ModelDiscovery = {
  kinds: 'chat',
  list: (listed) => ({ fake_models: listed.map((m) => m.id) }),
  get: (m) => ({ fake_model: m.id, fake_owner: m.ownedBy }),
  idOf: (id) => id,
  notFound: (m) => `no fake model ${m}`,
};

export const fakeFormat: FormatModule = {
  name: 'fake-format',
  metricLabel: 'fake',
  operation: () => 'chat',
  paths: [{ prefix: '/v7/fake' }, { prefix: '/v1/models', when: (headers) => headers['x-fake-key'] !== undefined }],
  routes: [
    { method: 'POST', path: '/v7/fake/generate', kind: 'chat' },
    { method: 'GET', path: '/v7/fake/models', kind: 'model-list' },
    { method: 'GET', path: '/v7/fake/models/:model', kind: 'model-get' },
    { method: 'GET', path: '/v1/models', kind: 'model-list' },
  ],
  credential: (headers) => headerValue(headers, 'x-fake-key'),
  credentialHeaders: ['x-fake-key'],
  encodeError,
  knownFields: ['model', 'prompt', 'stream'],
  providers: [],
  client,
  models,
};
