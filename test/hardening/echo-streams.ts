// Echo streams opened straight on the provider, without a gateway or a client: the hardening tests
// open many at once and read them (or not) at their own pace.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { EchoProvider } from '../../src/services/providers/echo-provider.ts';

/** A streamed request whose one user message is `text`, as a decoder would hand it to echo. */
export const echoStreamRequest = (text: string): ChatRequest =>
  ({
    model: 'echo',
    system: [],
    messages: [{ role: 'user', parts: [{ type: 'text', text }] }],
    tools: [],
    stream: true,
    extensions: {},
  }) as unknown as ChatRequest;

/** Opens `request` as a stream on one echo provider each call: the streams share it as requests do. */
export function echoStreamOpener(request: ChatRequest): () => Promise<AsyncIterable<StreamEvent>> {
  const provider = new EchoProvider('echo');
  const opts = { signal: new AbortController().signal, warn: () => {} };
  return () => provider.openStream(request, 'echo-1', opts);
}
