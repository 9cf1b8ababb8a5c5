import type { Message } from '../ir/chat-request.ts';
import type { Store } from '../store/store.ts';

/**
 * What a stored Responses answer keeps (family D state): enough to return it (`response`), to
 * list what it was asked (`inputItems`) and to continue it (`history`) on any provider.
 */
export type StoredResponse = {
  id: string;
  /** The client-facing model name. */
  model: string;
  provider: string;
  upstreamModel: string;
  status: 'completed' | 'incomplete' | 'failed' | 'cancelled';
  createdAt: number;
  /** The response object exactly as the client received it. */
  response: Record<string, unknown>;
  /** This request's input items in wire form, each with an id. */
  inputItems: Record<string, unknown>[];
  /**
   * The whole conversation through this response, in the IR, materialized so that continuing a
   * chain of any length reads one record, never the chain.
   */
  history: Message[];
  /** The provider that produced each history message; '' where the client supplied it. */
  producers: string[];
};

/** A wire item (input or output) that a later `item_reference` may name. */
export type StoredItem = { item: Record<string, unknown> };

const RESPONSES = 'responses';
const ITEMS = 'responses.items';

/** Typed access to stored responses, scoped by workspace on every read. */
export class ResponseRepository {
  readonly #store: Store;
  constructor(store: Store) {
    this.#store = store;
  }

  async get(id: string, workspace: string): Promise<StoredResponse | undefined> {
    return (await this.#store.get<StoredResponse>(RESPONSES, id, workspace))?.data;
  }

  async save(workspace: string, r: StoredResponse): Promise<void> {
    await this.#store.put(RESPONSES, { id: r.id, workspace, data: r, dueAt: null });
    const items = [...r.inputItems, ...((r.response.output as Record<string, unknown>[] | undefined) ?? [])];
    for (const item of items) {
      if (typeof item.id === 'string') await this.#store.put<StoredItem>(ITEMS, { id: item.id, workspace, data: { item }, dueAt: null });
    }
  }

  async item(id: string, workspace: string): Promise<Record<string, unknown> | undefined> {
    return (await this.#store.get<StoredItem>(ITEMS, id, workspace))?.data.item;
  }

  /** Deletes the response and the items only it introduced; false when absent in this workspace. */
  async delete(id: string, workspace: string): Promise<boolean> {
    const r = await this.get(id, workspace);
    if (!r) return false;
    await this.#store.delete(RESPONSES, id);
    for (const item of (r.response.output as Record<string, unknown>[] | undefined) ?? []) {
      if (typeof item.id === 'string') await this.#store.delete(ITEMS, item.id);
    }
    return true;
  }
}
