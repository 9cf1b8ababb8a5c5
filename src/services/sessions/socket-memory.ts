import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MemoryStore } from '../../infra/store/memory-store.ts';
import type { ClaimOptions, Claimed, CountedDoc, Doc, Store } from '../../infra/store/store.ts';
import { ResponseRepository } from './response-repository.ts';

/** The share of max_total_bytes that remembered responses and prepared turns may take, all sockets together. */
const keptShare = 0.75;

/**
 * What all Responses WebSockets hold together, bounded by `responses_websocket.max_total_bytes`
 * (issue #30: 8 sockets took the process from 253 MB to 2 GB). Summed over the open sockets when
 * asked, so nothing can drift: a socket's bytes leave with it.
 */
export class SocketMemoryPool {
  readonly maxBytes: number;
  readonly #open = new Set<SocketMemory>();
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }
  add(memory: SocketMemory): void {
    this.#open.add(memory);
  }
  remove(memory: SocketMemory): void {
    this.#open.delete(memory);
  }
  get used(): number {
    let n = 0;
    for (const m of this.#open) n += m.held;
    return n;
  }
  /** The part of `used` that sockets keep between turns (remembered responses and prepared turns). */
  get kept(): number {
    let n = 0;
    for (const m of this.#open) n += m.kept;
    return n;
  }
  /** Whether `bytes` more fit under the gateway-wide bound. */
  fits(bytes: number): boolean {
    return this.used + bytes <= this.maxBytes;
  }
}

/**
 * What one Responses WebSocket remembers (docs/responses-websocket.md): every response it served,
 * `store: false` ones included, so a chain continues by `previous_response_id` without the
 * store. Bounded by `responses_websocket.max_socket_bytes` (with the socket's prepared turns) and,
 * with every other socket's, by `max_total_bytes`; dropped with the socket.
 */
export class SocketMemory {
  readonly #store = new MemoryStore();
  /** Writes go to the socket's memory only. */
  readonly local = new ResponseRepository(this.#store);
  readonly maxBytes: number;
  readonly #pool: SocketMemoryPool;
  /** Bytes of the socket's prepared (`generate: false`) turns, counted against `maxBytes` with what it remembers. */
  prepared = 0;
  /** Bytes of the client messages queued or running on the socket (the pool counts them; max_queued_bytes bounds the queue). */
  pending = 0;

  constructor(maxBytes: number, pool: SocketMemoryPool = new SocketMemoryPool(Infinity)) {
    this.maxBytes = maxBytes;
    this.#pool = pool;
    pool.add(this);
  }

  /** Bytes this socket holds: remembered responses (their JSON), prepared turns, queued and running messages. */
  get held(): number {
    return this.kept + this.pending;
  }

  /** What the socket keeps between turns: remembered responses (their JSON) and prepared turns. */
  get kept(): number {
    return this.#store.countedTotal + this.prepared;
  }

  /**
   * The most the remembered responses may hold after the next one is added: what is left under
   * this socket's bound and under all sockets' bound, whichever is less, and which bound that is.
   * What sockets keep between turns may take three quarters of max_total_bytes: idle sockets full
   * of remembered turns must not refuse every new turn on the gateway.
   */
  room(): { limit: number; key: 'max_socket_bytes' | 'max_total_bytes' } {
    const stored = this.#store.countedTotal;
    const socket = this.maxBytes - this.prepared;
    const pool = this.#pool;
    const total = stored + Math.min(pool.maxBytes * keptShare - pool.kept, pool.maxBytes - pool.used);
    return socket <= total ? { limit: socket, key: 'max_socket_bytes' } : { limit: total, key: 'max_total_bytes' };
  }

  /** The socket closed: its bytes leave the pool. */
  release(): void {
    this.#pool.remove(this);
  }

  /** Reads the socket's memory first, then `base` (the process store); writes go to `base`. */
  over(base: Store): ResponseRepository {
    return new ResponseRepository(new LayeredStore(this.#store, base));
  }
}

/** Reads from `top` before `base`; everything else is `base`'s, so stored responses stay where HTTP puts them. */
class LayeredStore implements Store {
  readonly #top: Store;
  readonly #base: Store;
  readonly driver: Store['driver'];
  constructor(top: Store, base: Store) {
    this.#top = top;
    this.#base = base;
    this.driver = base.driver;
  }
  async get<T>(ns: string, id: string, workspace?: string): Promise<Doc<T> | undefined> {
    return (await this.#top.get<T>(ns, id, workspace)) ?? this.#base.get<T>(ns, id, workspace);
  }
  create<T>(ns: string, doc: Doc<T>): Promise<boolean> {
    return this.#base.create(ns, doc);
  }
  put<T>(ns: string, doc: Doc<T>, opts?: { token?: string }): Promise<boolean> {
    return this.#base.put(ns, doc, opts);
  }
  delete(ns: string, id: string): Promise<void> {
    return this.#base.delete(ns, id);
  }
  putCounted(workspace: string, docs: CountedDoc[], limit: number): Promise<void> {
    return this.#base.putCounted(workspace, docs, limit);
  }
  storedBytes(workspace: string): Promise<number> {
    return this.#base.storedBytes(workspace);
  }
  claimDue<T>(ns: string, opts: ClaimOptions): Promise<Claimed<T>[]> {
    return this.#base.claimDue<T>(ns, opts);
  }
  close(): Promise<void> {
    return this.#base.close();
  }
}

/**
 * The in-process connection a socket's response runs on, to its socket's memory. Keyed by the
 * server end of that connection, which only polygate creates (src/families/responses/loopback-request.ts),
 * so no client can name another socket's memory.
 */
const memories = new WeakMap<object, SocketMemory>();

export function bindSocketMemory(serverEnd: Duplex, memory: SocketMemory): void {
  memories.set(serverEnd, memory);
}

export const socketMemoryOf = (socket: Socket | Duplex): SocketMemory | undefined => memories.get(socket);
