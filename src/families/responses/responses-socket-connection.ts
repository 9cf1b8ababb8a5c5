import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { ResponsesWebsocketConfig } from '../../infra/config/gateway-config.ts';
import {
  responsesSocketMessages,
  responsesSocketResponses,
  responsesSocketsOpen,
} from '../../infra/metrics/registry.ts';
import { loopbackRequest, type LoopbackCall } from './loopback-request.ts';
import { PreparedTurns } from './prepared-turns.ts';
import { SocketMemory, type SocketMemoryPool } from '../../services/sessions/socket-memory.ts';
import { memoryLimitError, socketError, steerFailed, wsErrorOfHttp, type WsError } from './socket-error.ts';
import { queueRefusal, sizeOf, type Turn } from './lane-queue.ts';

export type SocketSetup = {
  /** polygate's own HTTP server: each response.create runs through it (src/families/responses/loopback-request.ts). */
  server: Server;
  /** The handshake's headers that every response carries (credentials, openai-beta, ...). */
  headers: IncomingHttpHeaders;
  config: ResponsesWebsocketConfig;
  log: Logger;
  keyId: string;
  /** What all sockets hold together (responses_websocket.max_total_bytes). */
  pool: SocketMemoryPool;
};

/** Bytes queued on the socket past which a response's events wait for the client to read. */
const sendHighWater = 1024 * 1024;

/**
 * One Responses WebSocket (docs/responses-websocket.md): client events in, the HTTP stream's
 * events out. Responses with the same `stream_id` (or none) run one after another, FIFO; distinct
 * lanes run at once up to `max_concurrent_responses`.
 */
export class ResponsesSocketConnection {
  readonly #ws: WebSocket;
  readonly #setup: SocketSetup;
  readonly #memory: SocketMemory;
  readonly #prepared: PreparedTurns;
  readonly #lanes = new Map<string, Turn[]>();
  readonly #calls = new Set<LoopbackCall>();
  readonly #timers: NodeJS.Timeout[] = [];
  #idle: NodeJS.Timeout | undefined;
  readonly #openedAt = Date.now();
  #lastActivity = Date.now();
  #alive = true;
  #responses = 0;
  /** What made `ws` fail the socket (a malformed frame, a message too big), for its close line. */
  #failure: Error | undefined;
  /** Why no new response is taken any more: the socket closes with this once its lanes are empty. */
  #ending: { code: number; reason: string } | undefined;
  readonly closed: Promise<void>;

  constructor(ws: WebSocket, setup: SocketSetup) {
    this.#ws = ws;
    this.#setup = setup;
    this.#memory = new SocketMemory(setup.config.max_socket_bytes, setup.pool);
    this.#prepared = new PreparedTurns(setup.config.max_message_bytes);
    responsesSocketsOpen.inc();
    // A malformed frame (invalid UTF-8, unmasked, RSV bits, reserved opcode, bad close code,
    // fragmented control frame, a length past max_message_bytes) makes `ws` send the close code
    // (1007, 1002, 1009) and then emit 'error': unheard, it would end the process for every
    // tenant (issue #30). It is the client's fault, so it is only noted for the close line.
    ws.on('error', (err) => {
      this.#failure ??= err;
    });
    ws.on('message', (data) => this.#receive(data));
    ws.on('pong', () => {
      this.#alive = true;
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code) => {
        this.#closed(code);
        resolve();
      });
    });
    // A peer that stops answering pings is gone without a close frame (a vanished client).
    this.#timers.push(
      setInterval(() => {
        if (!this.#alive) return ws.terminate();
        this.#alive = false;
        ws.ping();
      }, setup.config.ping_interval_ms),
    );
    this.#armIdle(setup.config.idle_timeout_ms);
    if (setup.config.max_connection_ms > 0) {
      this.#timers.push(
        setTimeout(() => {
          this.#send(
            JSON.stringify(
              socketError(
                400,
                'websocket_connection_limit_reached',
                `this socket has been open ${setup.config.max_connection_ms} ms (responses_websocket.max_connection_ms); open a new one to continue`,
                null,
              ),
            ),
          );
          this.end(1000, 'connection limit reached');
        }, setup.config.max_connection_ms),
      );
    }
  }

  /** Takes no new response and closes once those under way and queued have finished (SIGTERM drain: 1001). */
  end(code: number, reason: string): void {
    this.#ending ??= { code, reason };
    if (this.#lanes.size === 0) this.#ws.close(this.#ending.code, this.#ending.reason);
  }

  /** Cuts the socket and every response under way (past the shutdown deadline). */
  terminate(): void {
    this.#ws.terminate();
  }

  #armIdle(after: number): void {
    this.#idle = setTimeout(() => {
      const quiet = Date.now() - this.#lastActivity;
      // A long response with nothing to say for a while is not idleness.
      if (quiet >= this.#setup.config.idle_timeout_ms && this.#lanes.size === 0) this.#ws.close(1000, 'idle timeout');
      else this.#armIdle(Math.max(1000, this.#setup.config.idle_timeout_ms - quiet));
    }, after);
  }

  #receive(data: RawData): void {
    const bytes = sizeOf(data);
    this.#lastActivity = Date.now();
    responsesSocketMessages.inc({ direction: 'in' });
    let event: unknown;
    try {
      event = JSON.parse(String(data));
    } catch (e) {
      return this.#fail(
        socketError(400, 'invalid_json', `the message is not valid JSON: ${(e as Error).message}`, null),
      );
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event))
      return this.#fail(
        socketError(400, 'invalid_event', 'a client event must be a JSON object with a `type`', 'type'),
      );
    const e = event as Record<string, unknown>;
    switch (e.type) {
      case 'response.create':
        return this.#create(e, bytes);
      case 'response.steer':
        return this.#send(JSON.stringify(steerFailed(e)));
      default:
        return this.#fail(
          socketError(
            400,
            'unknown_event_type',
            `unknown client event type ${JSON.stringify(e.type)?.slice(0, 100)}; polygate takes 'response.create' and 'response.steer'`,
            'type',
          ),
        );
    }
  }

  #create(e: Record<string, unknown>, bytes: number): void {
    const { type: _type, stream_id: streamId, stream: _stream, ...body } = e;
    if (streamId !== undefined && typeof streamId !== 'string')
      return this.#fail(socketError(400, 'invalid_type', 'stream_id: must be a string', 'stream_id'));
    const fail = (err: WsError): void => this.#fail(streamId === undefined ? err : { ...err, stream_id: streamId });
    if (body.background === true)
      return fail(
        socketError(
          400,
          'invalid_value',
          'background: not supported over WebSocket; responses stream on the socket',
          'background',
        ),
      );
    if (this.#ending) {
      const draining = this.#ending.code === 1001;
      return fail(
        socketError(
          draining ? 503 : 400,
          draining ? 'server_shutting_down' : 'websocket_connection_limit_reached',
          `this socket takes no new response (${this.#ending.reason}); open a new one`,
          null,
        ),
      );
    }
    // What every socket holds together is bounded: past it the turn is refused, not held.
    if (!this.#setup.pool.fits(bytes))
      return fail(memoryLimitError(this.#setup.pool.used, bytes, this.#setup.pool.maxBytes));
    if (body.generate === false) {
      for (const event of this.#prepared.prepare(body))
        this.#send(JSON.stringify(streamId === undefined ? event : { ...event, stream_id: streamId }));
      this.#memory.prepared = this.#prepared.bytes;
      return;
    }
    delete body.generate;
    const lane = streamId ?? '';
    const queue = this.#lanes.get(lane);
    // Same lane: queued behind the response under way (FIFO, as the protocol says), within bounds.
    if (queue) {
      const full = queueRefusal(this.#lanes, queue, bytes, this.#setup.config);
      if (full) return fail(socketError(429, 'too_many_queued_responses', full, 'stream_id'));
      this.#memory.pending += bytes;
      return void queue.push({ body, streamId, bytes });
    }
    if (this.#lanes.size >= this.#setup.config.max_concurrent_responses) {
      return fail(
        socketError(
          429,
          'too_many_concurrent_responses',
          `this socket already runs ${this.#lanes.size} responses at once (responses_websocket.max_concurrent_responses); send on one of their stream_id lanes or wait`,
          'stream_id',
        ),
      );
    }
    this.#memory.pending += bytes;
    const turns: Turn[] = [{ body, streamId, bytes }];
    this.#lanes.set(lane, turns);
    void this.#runLane(lane, turns);
  }

  async #runLane(lane: string, turns: Turn[]): Promise<void> {
    for (let turn = turns.shift(); turn; turn = turns.shift()) await this.#serve(turn);
    this.#lanes.delete(lane);
    this.#lastActivity = Date.now();
    if (this.#ending) this.end(this.#ending.code, this.#ending.reason);
  }

  /** One response: the POST body through the HTTP pipeline, its events (or its error) onto the socket. */
  async #serve(turn: Turn): Promise<void> {
    try {
      await this.#run(turn);
    } finally {
      this.#memory.pending -= turn.bytes;
    }
  }

  async #run(turn: Turn): Promise<void> {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    this.#responses++;
    responsesSocketResponses.inc();
    const body = this.#prepared.resolve(turn.body);
    const call = loopbackRequest(
      this.#setup.server,
      '/v1/responses',
      this.#setup.headers,
      JSON.stringify({ ...body, stream: true }),
      this.#memory,
    );
    this.#calls.add(call);
    try {
      const res = await call.response;
      if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream'))
        await this.#relayEvents(res, turn.streamId);
      else this.#fail(wsErrorOfHttp(res.statusCode ?? 500, await readText(res), res.headers, turn.streamId));
    } catch (e) {
      // Only an aborted call (the socket went) or a dead loopback lands here.
      if (this.#ws.readyState === this.#ws.OPEN) {
        this.#setup.log.error({ err: e }, 'responses websocket: a response failed inside polygate');
        this.#fail(socketError(500, 'internal_error', 'the response failed inside polygate', null));
      }
    } finally {
      this.#calls.delete(call);
    }
  }

  /** Each SSE event's data is one server event, sent as it is (with the lane's `stream_id` added when it has one). */
  async #relayEvents(res: IncomingMessage, streamId: string | undefined): Promise<void> {
    const parser = createParser({
      onEvent: (ev) => {
        if (streamId === undefined) return this.#send(ev.data);
        const event = JSON.parse(ev.data) as Record<string, unknown>;
        this.#send(JSON.stringify({ ...event, stream_id: streamId }));
      },
    });
    res.setEncoding('utf8');
    for await (const chunk of res) {
      parser.feed(chunk as string);
      // A client that reads slowly holds its response (and, through the HTTP stream's own
      // backpressure, the upstream) instead of polygate buffering the stream without bound.
      while (this.#ws.bufferedAmount > sendHighWater && this.#ws.readyState === this.#ws.OPEN)
        await new Promise((r) => setTimeout(r, 5));
    }
  }

  #fail(err: WsError): void {
    this.#send(JSON.stringify(err));
  }

  #send(message: string): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    this.#lastActivity = Date.now();
    responsesSocketMessages.inc({ direction: 'out' });
    this.#ws.send(message);
  }

  /** The client closed or vanished: every response under way is aborted, its upstream call with it; the memory goes. */
  #closed(code: number): void {
    for (const t of this.#timers) clearTimeout(t);
    clearTimeout(this.#idle);
    for (const call of this.#calls) call.abort();
    for (const turns of this.#lanes.values()) turns.length = 0;
    // Its memory, queue and running turns no longer count against max_total_bytes.
    this.#memory.release();
    responsesSocketsOpen.dec();
    const failure = this.#failure;
    const fields = {
      key: this.#setup.keyId,
      responses: this.#responses,
      close_code: code,
      duration_ms: Date.now() - this.#openedAt,
      // ws's own messages are short and fixed; the bound keeps it so whatever a later ws says.
      // (the close code received is 1006 then: ws reads nothing after the bad frame).
      ...(failure
        ? {
            ws_error: failure.message.slice(0, 200),
            ws_error_code: String((failure as { code?: unknown }).code).slice(0, 60),
          }
        : {}),
    };
    if (failure) this.#setup.log.warn(fields, 'responses websocket closed');
    else this.#setup.log.info(fields, 'responses websocket closed');
  }
}

async function readText(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk as string;
  return text;
}
