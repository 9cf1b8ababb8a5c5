import type { Message } from '../../ir/chat-request.ts';
import { reasoningOriginOf } from '../../ir/wire-format.ts';
import { conversationChars } from '../tokens/estimate-tokens.ts';
import type { CountedDoc, Store } from '../../infra/store/store.ts';

/**
 * What a stored Responses answer keeps (`openai-responses` state): enough to return it (`response`) and to
 * list what it was asked (`inputItems`). The conversation lives in turns (`StoredTurn`), one per
 * response, each holding only what that response added: a chain of n answers stores its text
 * once, not n times (a whole-history record per answer made a chain of 40 requests of 0.9 MB
 * grow the database by 1.7 GB).
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
   * The body went to the upstream as sent, `store` on (issue #29): the upstream keeps this
   * response too, so a later turn to the same provider can be relayed with its
   * `previous_response_id` for the upstream to resolve.
   */
  relayed?: boolean;
  /** Records written before turns existed carry the whole conversation here. */
  history?: Message[];
  producers?: string[];
};

/** One response's share of a conversation, in the IR, so a chain continues on any provider. */
export type StoredTurn = {
  /** The response this one continued; null at the start of a chain. */
  previousId: string | null;
  /** The messages this request sent (after the previous response's) and its answer. */
  messages: Message[];
  /** The provider that produced each message; '' where the client supplied it. */
  producers: string[];
  /** Size of the conversation through this turn (src/services/tokens/estimate-tokens.ts conversationChars), for the chain cap. */
  chainChars: number;
  /** Turns in the chain through this one. */
  length: number;
  /**
   * The turn in the Responses wire form (a Responses WebSocket's turns): the input items as the
   * client sent them (item references resolved) and the response's output items as the client
   * received them, so a same-format route can be relayed the conversation verbatim.
   */
  raw?: RawTurn;
};

/** One turn's wire items (StoredTurn.raw) and the provider that answered it. */
export type RawTurn = { input: Record<string, unknown>[]; output: Record<string, unknown>[]; provider: string };

/**
 * A conversation read back from its turns. `raw`: each turn's wire items in order, or undefined
 * when a turn of the chain has none (then only the IR messages can carry it).
 */
export type Conversation = {
  messages: Message[];
  producers: string[];
  chainChars: number;
  length: number;
  raw?: RawTurn[];
};

/**
 * A wire item (input or output) that a later `item_reference` may name. `owner`: the response
 * that stored it last (an output item sent back as input is stored again by the later response).
 */
export type StoredItem = { item: Record<string, unknown>; owner?: string };

const RESPONSES = 'responses';
const TURNS = 'responses.turns';
const ITEMS = 'responses.items';
/** A marker per response that a later turn continued: its turn must stay when it is deleted. */
const CONTINUED = 'responses.continued';

/**
 * Turns stored before reasoning origins were format names carry 'anthropic', 'openai', 'echo' or
 * none: read as today's names (src/ir/wire-format.ts), or 'polygate' (replayed to no upstream).
 */
const withOrigins = (messages: Message[]): Message[] =>
  messages.map((m) =>
    m.role === 'system' || !m.parts.some((p) => p.type === 'reasoning')
      ? m
      : {
          ...m,
          parts: m.parts.map((p) =>
            p.type === 'reasoning' ? { ...p, origin: reasoningOriginOf(p.origin) ?? 'polygate' } : p,
          ),
        },
  );

/** Typed access to stored responses, scoped by workspace on every read. */
export class ResponseRepository {
  readonly #store: Store;
  constructor(store: Store) {
    this.#store = store;
  }

  async get(id: string, workspace: string): Promise<StoredResponse | undefined> {
    return (await this.#store.get<StoredResponse>(RESPONSES, id, workspace))?.data;
  }

  /**
   * Stores a response, its turn and its items in one counted write (src/infra/store/store.ts): all of
   * them, or none with StoreQuotaError when the workspace would pass `maxWorkspaceBytes`.
   */
  async save(workspace: string, r: StoredResponse, turn: StoredTurn, maxWorkspaceBytes = Infinity): Promise<void> {
    const docs: CountedDoc[] = [
      { ns: TURNS, doc: { id: r.id, workspace, data: turn, dueAt: null } },
      { ns: RESPONSES, doc: { id: r.id, workspace, data: r, dueAt: null } },
    ];
    if (turn.previousId !== null)
      docs.push({ ns: CONTINUED, doc: { id: turn.previousId, workspace, data: 1, dueAt: null } });
    const items = [...r.inputItems, ...((r.response.output as Record<string, unknown>[] | undefined) ?? [])];
    for (const item of items) {
      if (typeof item.id === 'string')
        docs.push({
          ns: ITEMS,
          doc: { id: item.id, workspace, data: { item, owner: r.id } satisfies StoredItem, dueAt: null },
        });
    }
    await this.#store.putCounted(workspace, docs, maxWorkspaceBytes);
  }

  /** The bytes this workspace's stored responses hold (what `limits.max_workspace_stored_bytes` bounds). */
  async storedBytes(workspace: string): Promise<number> {
    return this.#store.storedBytes(workspace);
  }

  /**
   * The conversation through response `id`, walking its turns back to the chain's start. The walk
   * reads at most the chain's turns, whose size and count the chain cap bounds, one per loop turn.
   */
  async conversation(id: string, workspace: string, legacy: StoredResponse): Promise<Conversation> {
    const turns: StoredTurn[] = [];
    let base: Conversation = { messages: [], producers: [], chainChars: 0, length: 0 };
    for (let at: string | null = id; at !== null;) {
      const turn: StoredTurn | undefined = (await this.#store.get<StoredTurn>(TURNS, at, workspace))?.data;
      if (!turn) {
        // A record from before turns: its history is the whole conversation up to it.
        const old = at === id ? legacy : await this.get(at, workspace);
        if (old?.history)
          base = {
            messages: old.history,
            producers: old.producers ?? [],
            chainChars: conversationChars(old.history),
            length: 1,
          };
        break;
      }
      turns.push(turn);
      at = turn.previousId;
      // The sqlite driver reads synchronously: without a turn of the event loop between reads, a
      // chain of 40 turns of 0.9 MB was read and parsed in one go (700 ms, bench/attack-suite.ts 6').
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const messages = [...base.messages];
    const producers = [...base.producers];
    let raw: RawTurn[] | undefined = base.messages.length === 0 ? [] : undefined;
    for (let i = turns.length - 1; i >= 0; i--) {
      messages.push(...turns[i].messages);
      producers.push(...turns[i].producers);
      const r = turns[i].raw;
      if (r && raw) raw.push(r);
      else raw = undefined;
    }
    return {
      messages: withOrigins(messages),
      producers,
      chainChars: turns[0]?.chainChars ?? base.chainChars,
      length: turns[0]?.length ?? base.length,
      raw,
    };
  }

  async item(id: string, workspace: string): Promise<Record<string, unknown> | undefined> {
    return (await this.#store.get<StoredItem>(ITEMS, id, workspace))?.data.item;
  }

  /**
   * Deletes the response, its output items and the input items it stored last; false when absent
   * in this workspace. Its turn goes too unless a later response continued it: those still read
   * their conversation through it (the turn then stays, and counts, until the store is cleared).
   */
  async delete(id: string, workspace: string): Promise<boolean> {
    const r = await this.get(id, workspace);
    if (!r) return false;
    await this.#store.delete(RESPONSES, id);
    for (const item of (r.response.output as Record<string, unknown>[] | undefined) ?? []) {
      if (typeof item.id === 'string') await this.#store.delete(ITEMS, item.id);
    }
    for (const item of r.inputItems) {
      if (typeof item.id !== 'string') continue;
      const stored = await this.#store.get<StoredItem>(ITEMS, item.id, workspace);
      if (stored?.data.owner === id) await this.#store.delete(ITEMS, item.id);
    }
    if (!(await this.#store.get(CONTINUED, id, workspace))) await this.#store.delete(TURNS, id);
    return true;
  }
}
