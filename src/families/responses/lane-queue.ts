import type { RawData } from 'ws';
import type { ResponsesWebsocketConfig } from '../../infra/config/gateway-config.ts';

/** One queued `response.create`: the POST body, its lane (`stream_id`) and the size of its message. */
export type Turn = { body: Record<string, unknown>; streamId: string | undefined; bytes: number };

/** The size of a message as `ws` hands it over. */
export const sizeOf = (data: RawData): number =>
  Array.isArray(data)
    ? data.reduce((n, b) => n + b.length, 0)
    : data instanceof ArrayBuffer
      ? data.byteLength
      : data.length;

/**
 * Why a message of `bytes` cannot wait on `lane` (the turns waiting behind its running response),
 * or undefined when it can: behind one slow response a lane once held 2,500 messages of 200 KB
 * (+558 MB, issue #30). Refused, not dropped: the client learns at once and can send again once
 * its lane moves. `lanes` are all the socket's lanes, `lane` among them.
 */
export function queueRefusal(
  lanes: ReadonlyMap<string, readonly Turn[]>,
  lane: readonly Turn[],
  bytes: number,
  c: ResponsesWebsocketConfig,
): string | undefined {
  let queued = 0;
  let queuedBytes = 0;
  for (const turns of lanes.values()) {
    queued += turns.length;
    for (const t of turns) queuedBytes += t.bytes;
  }
  if (lane.length >= c.max_queued_per_lane)
    return `${lane.length} response.create messages already wait on this stream_id lane (responses_websocket.max_queued_per_lane); send it once the lane's responses have ended`;
  if (queued >= c.max_queued_responses)
    return `${queued} response.create messages already wait on this socket (responses_websocket.max_queued_responses); send it once its responses have ended`;
  if (queuedBytes + bytes > c.max_queued_bytes)
    return `the response.create messages waiting on this socket hold ${queuedBytes} bytes and this one (${bytes}) would pass ${c.max_queued_bytes} (responses_websocket.max_queued_bytes); send it once its responses have ended`;
  return undefined;
}
