import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MemoryStore } from '../../infra/store/memory-store.ts';
import type { ClaimOptions, Claimed, CountedDoc, Doc, Store } from '../../infra/store/store.ts';
import { ResponseRepository } from './response-repository.ts';

/**
 * What one Responses WebSocket remembers (docs/responses-websocket.md): every response it served,
 * `store: false` ones included, so a chain continues by `previous_response_id` without the
 * store. Bounded by `responses_websocket.max_socket_bytes`; dropped with the socket.
 */
export class SocketMemory {
  readonly #store = new MemoryStore();
  /** Writes go to the socket's memory only. */
  readonly local = new ResponseRepository(this.#store);
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
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
