// An upstream codec against its emulator over real HTTP, as a provider drives it: the encoded
// request POSTed to the emulator, and a streamed answer read through polygate's own SSE reader.
import type { Test } from 'tap';
import type { ChatUpstreamCodec } from '../../adapters/shared/chat-adapter.ts';
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { readSse } from '../../src/infra/upstream/read-sse.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { chatRequest } from '../helpers/chat-request.ts';
import { userText } from './ir-messages.ts';

/**
 * A codec's test file against one emulator: started once, closed at teardown, its log cleared
 * before each test; `send` POSTs the codec's encoding for upstream model `model` with `auth`.
 */
export async function codecWithEmulator(
  t: Test,
  start: () => Promise<Emulator>,
  codec: ChatUpstreamCodec,
  model: string,
  auth: Record<string, string>,
): Promise<{ em: Emulator; send: (req: ChatRequest) => Promise<Response> }> {
  const em = await start();
  t.teardown(() => em.close());
  t.beforeEach(() => em.reset());
  return { em, send: (req) => sendEncoded(codec, em.url, req, model, auth) };
}

/** The request these tests start from: client model `model`, system "Be brief.", one user turn saying `text`; `extra` changes it. */
export const briefTurn =
  (model: string, text: string) =>
  (extra: Partial<ChatRequest> = {}): ChatRequest =>
    chatRequest({ model, system: [{ type: 'text', text: 'Be brief.' }], messages: [userText(text)], ...extra });

/** POSTs `codec`'s encoding of `req` (path, headers, body) to the emulator at `baseUrl`, with the provider's `auth` headers. */
export function sendEncoded(
  codec: ChatUpstreamCodec,
  baseUrl: string,
  req: ChatRequest,
  model: string,
  auth: Record<string, string>,
): Promise<Response> {
  const enc = codec.encodeRequest(req, model, () => {});
  return fetch(baseUrl + enc.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...enc.headers },
    body: JSON.stringify(enc.body),
  });
}

/** The IR events of a streamed answer; a read that throws (a dropped socket) ends the list with `onThrow`'s value. */
export async function streamedEvents<T>(
  res: Response,
  codec: ChatUpstreamCodec,
  onThrow: (e: unknown) => T,
): Promise<Array<StreamEvent | T>> {
  if (!res.body) throw new Error('no body');
  const out: Array<StreamEvent | T> = [];
  try {
    for await (const e of readSse(res.body as unknown as AsyncIterable<Uint8Array>, codec.createStreamDecoder()))
      out.push(e);
  } catch (e) {
    out.push(onThrow(e));
  }
  return out;
}
