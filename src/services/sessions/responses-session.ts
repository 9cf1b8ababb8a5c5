import type { SseFrame } from '../../../adapters/shared/chat-adapter.ts';
import type { ConversationWire } from '../../../adapters/shared/format-module.ts';
import type { ChatRequest, Message, Part, SystemMessage } from '../../ir/chat-request.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { ChatSession } from './chat-session.ts';
import type { Route } from '../routing/model-router.ts';
import { leadingInstructions, normalizeInputItems, resolveItemReferences } from './input-items.ts';
import { ResponseRepository, type RawTurn, type StoredResponse, type StoredTurn } from './response-repository.ts';
import { applyTruncation } from './truncate-conversation.ts';
import { conversationChars } from '../tokens/estimate-tokens.ts';
import { StoreQuotaError } from '../../infra/store/store.ts';
import { socketMemoryOf, type SocketMemory } from './socket-memory.ts';
import type { GatewayContext } from '../runtime/gateway-context.ts';

/** Extension keys the Responses decoder writes that polygate itself answers (never sent upstream). */
const stateKeys: ReadonlySet<string> = new Set([
  'previous_response_id',
  'item_references',
  'item_reference_slots',
  'store',
  'truncation',
]);

/** Final stream events that carry the whole response object. */
const finalEvents = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export const repositoryOf = (ctx: GatewayContext): ResponseRepository =>
  new ResponseRepository(ctx.state.services.store);

/**
 * The `openai-responses` format's state around one request, for any format whose module carries a
 * `conversation` (its wire, adapters/shared/format-module.ts) (docs/architecture.md, "State"): `previous_response_id` and
 * `item_reference` are resolved from polygate's store, so a conversation continues on any
 * upstream, none of which keeps state for polygate; the answer is stored unless `store: false`.
 */
export class ResponsesSession implements ChatSession {
  readonly #wire: ConversationWire;
  readonly #repo: ResponseRepository;
  readonly #workspace: string;
  readonly #contextWindow: (model: string) => number | undefined;
  /**
   * The request's input after item references were resolved: its items get their ids and wire
   * form (StoredResponse.inputItems) only when the response is kept (#save), not for every request.
   */
  #input: unknown;
  /** The request's body after item references were resolved, and its input items as sent (StoredTurn.raw). */
  #body: Record<string, unknown> | undefined;
  #rawInput: Record<string, unknown>[] = [];
  /** The wire items of the chain this request continues; undefined when a turn of it has none. */
  #chainRaw: RawTurn[] | undefined = [];
  /** Which provider produced each stored message; by identity, so truncation cannot misalign it. */
  #producers = new Map<Message, string>();
  #store = true;
  /** The messages this request sent, stored as its turn (the chain before it is stored already). */
  #own: Message[] = [];
  #previousId: string | null = null;
  /** Size and length of the chain through this request's input (src/services/sessions/response-repository.ts). */
  #chain = { chars: 0, length: 0 };
  readonly #maxChainChars: number;
  readonly #maxWorkspaceBytes: number;
  /** The warning channel of the route that serves (a header on a non-streamed answer, the metric always). */
  #warn: ((field: string, message: string) => void) | undefined;
  #created: Record<string, unknown> | undefined;
  /** The answer came from a stored relay (StoredResponse.relayed). */
  #relayed = false;
  #final: Record<string, unknown> | undefined;
  /** A request sent over a Responses WebSocket: its socket's memory (src/services/sessions/socket-memory.ts). */
  readonly #memory: SocketMemory | undefined;
  /**
   * An HTTP request polygate stores (`store` not false): relayed as sent to a same-format route, its
   * turn stored from the decoded request and the relayed answer (issue #29). The body as the client sent it.
   */
  readonly #storedRelay: Record<string, unknown> | undefined;
  /** The stored response `previous_response_id` names. */
  #previous: StoredResponse | undefined;

  constructor(
    wire: ConversationWire,
    repo: ResponseRepository,
    workspace: string,
    contextWindow: (model: string) => number | undefined,
    maxChainChars = Infinity,
    maxWorkspaceBytes = Infinity,
    memory?: SocketMemory,
    sent?: unknown,
  ) {
    this.#wire = wire;
    this.#memory = memory;
    this.#storedRelay = !memory && isItem(sent) && sent.store !== false ? sent : undefined;
    this.#repo = repo;
    this.#maxChainChars = maxChainChars;
    this.#maxWorkspaceBytes = maxWorkspaceBytes;
    this.#workspace = workspace;
    this.#contextWindow = contextWindow;
  }

  /**
   * Over a socket every turn goes to its memory, and over HTTP a stored one to the store: a
   * same-format route relays only what `relayBody` gives, and the answer is kept from there.
   */
  get keepsEveryTurn(): boolean {
    return this.#memory !== undefined || this.#storedRelay !== undefined;
  }

  static of(ctx: GatewayContext, wire: ConversationWire): ResponsesSession {
    const state = ctx.state;
    const config = state.runtime.config;
    // Over a socket, `previous_response_id` and item references read its memory first.
    const memory = socketMemoryOf(ctx.req.socket);
    const repo = memory ? memory.over(state.services.store) : repositoryOf(ctx);
    return new ResponsesSession(
      wire,
      repo,
      state.key.workspace,
      (m) => state.runtime.router.resolve(m)?.config.context_window,
      config.limits.max_conversation_bytes,
      config.limits.max_workspace_stored_bytes,
      memory,
      ctx.request.body,
    );
  }

  async prepareBody(body: unknown): Promise<unknown> {
    const resolved = await resolveItemReferences(body, this.#repo, this.#workspace, this.#wire.isItemReference);
    const input = (resolved as { input?: unknown } | null)?.input;
    this.#input = input;
    if (this.#memory && isItem(resolved)) {
      this.#body = resolved;
      this.#rawInput =
        typeof input === 'string'
          ? [{ type: 'message', role: 'user', content: input }]
          : Array.isArray(input)
            ? input.filter(isItem)
            : [];
    }
    return resolved;
  }

  async prepareRequest(request: ChatRequest): Promise<void> {
    // The Responses client's own options (adapters/shared/format-extensions.ts).
    const options = request.extensions['openai-responses'] ?? {};
    this.#store = options['store'] !== false;
    const previousId = options['previous_response_id'];
    // A first turn's leading developer/system items are its system prompt (the decoder put them
    // there, after `instructions`); they are conversation items all the same, so the stored turn
    // keeps them, as a system message, for the turns that continue it.
    const leading = typeof previousId === 'string' ? [] : leadingInstructions(this.#input);
    this.#own = leading.length > 0 ? [{ role: 'system', parts: leading }, ...request.messages] : request.messages;
    let chain = { chars: 0, length: 0 };
    if (typeof previousId === 'string') {
      const previous = await this.#repo.get(previousId, this.#workspace);
      if (!previous)
        throw new GatewayError('not-found', `Previous response with id '${previousId}' not found.`, {
          param: 'previous_response_id',
        });
      this.#previous = previous;
      const conversation = await this.#repo.conversation(previousId, this.#workspace, previous);
      // `instructions` are not carried over (spec): only the conversation is. Its leading system
      // message (the first turn's developer items) is the system prompt again, after this turn's
      // `instructions`, as it was on the first turn.
      const stored = [...conversation.messages];
      while (stored[0]?.role === 'system') request.system.push(...(stored.shift() as SystemMessage).parts);
      const offset = conversation.messages.length - stored.length;
      stored.forEach((m, i) => this.#producers.set(m, conversation.producers[i + offset] ?? ''));
      request.messages = [...stored, ...request.messages];
      this.#previousId = previousId;
      this.#chainRaw = conversation.raw;
      chain = { chars: conversation.chainChars, length: conversation.length };
    }
    this.#chain = { chars: chain.chars + turnChars(this.#own), length: chain.length + 1 };
    if (this.#previousId !== null && this.#chain.chars > this.#maxChainChars) {
      throw new GatewayError(
        'invalid-request',
        `previous_response_id: the conversation of response '${this.#previousId}' with this input would exceed the ${this.#maxChainChars} characters a stored conversation may hold (limits.max_conversation_bytes). Start a new conversation, or send the input without previous_response_id.`,
        { param: 'previous_response_id' },
      );
    }
    if (this.#store) await this.#checkRoom();
    const truncation = options['truncation'] === 'auto' ? 'auto' : 'disabled';
    applyTruncation(request, this.#contextWindow(request.model), truncation);
  }

  /**
   * Before any upstream call: a workspace whose stored responses, plus what this request would
   * add of its own input (its turn, its record and its items each hold it once), would pass
   * `limits.max_workspace_stored_bytes` gets 400 naming `store`. The answer's size is not known
   * yet; a store that only the answer takes over the limit is refused after it (see #save).
   */
  async #checkRoom(): Promise<void> {
    if (this.#maxWorkspaceBytes === Infinity) return;
    const used = await this.#repo.storedBytes(this.#workspace);
    const own = 3 * conversationChars(this.#own);
    if (used + own <= this.#maxWorkspaceBytes) return;
    throw new GatewayError(
      'invalid-request',
      `store: this workspace's stored responses hold ${used} bytes and this request would add about ${own} more, past the ${this.#maxWorkspaceBytes} bytes a workspace may store (limits.max_workspace_stored_bytes). Delete stored responses (DELETE /v1/responses/{id}) or send store: false.`,
      { param: 'store' },
    );
  }

  /**
   * Reasoning signatures and encrypted content are valid only on the provider that produced them:
   * replayed to it, and dropped with a warning for any other.
   */
  forRoute(request: ChatRequest, route: Route, warn: (field: string, message: string) => void): ChatRequest {
    this.#warn = warn;
    // The client's options without the state keys, copied key by key: deleting them from a copy
    // left an object in dictionary mode for every encoder's read of it.
    const own = request.extensions['openai-responses'];
    const options: Record<string, unknown> = {};
    if (own) for (const k of Object.keys(own)) if (!stateKeys.has(k)) options[k] = own[k];
    const extensions = { ...request.extensions, 'openai-responses': options };
    let dropped = 0;
    // Only a continued chain has messages another provider produced.
    const messages =
      this.#producers.size === 0
        ? request.messages
        : request.messages.map((m) => {
            const producer = this.#producers.get(m);
            if (
              m.role === 'system' ||
              !producer ||
              producer === route.provider ||
              !m.parts.some((p) => p.type === 'reasoning')
            )
              return m;
            const parts = m.parts.filter((p) => p.type !== 'reasoning');
            dropped += m.parts.length - parts.length;
            return { ...m, parts };
          });
    if (dropped > 0)
      warn(
        'input.reasoning',
        `${dropped} reasoning item(s) from another provider are not replayed to '${route.provider}'`,
      );
    return { ...request, extensions, messages: messages.filter((m) => m.parts.length > 0) };
  }

  /**
   * A socket's `store: false` turn on a same-format route is relayed (docs/responses-websocket.md):
   * the chain's wire items (each turn's input, then its output) and then the new input, with no
   * `previous_response_id`, every other field as the client sent it. Reasoning goes back only to
   * the provider that produced it, and only with its encrypted_content (the upstream keeps no
   * state of a `store: false` response to find it by id). Undefined, so the route translates,
   * when a turn of the chain has no wire items (it was stored without them).
   */
  relayBody(route: Route, warn: (field: string, message: string) => void): Record<string, unknown> | undefined {
    if (this.#storedRelay) return this.#storedRelayBody(route);
    if (!this.#memory || this.#store || !this.#body || !this.#chainRaw) return undefined;
    const items: unknown[] = [];
    let dropped = 0;
    for (const turn of this.#chainRaw) {
      items.push(...turn.input);
      for (const item of turn.output) {
        if (
          item.type === 'reasoning' &&
          (turn.provider !== route.provider || typeof item.encrypted_content !== 'string')
        )
          dropped++;
        else items.push(item);
      }
    }
    if (dropped > 0)
      warn(
        'input.reasoning',
        `${dropped} reasoning item(s) of earlier turns are not replayed to '${route.provider}' (another provider's, or without encrypted_content)`,
      );
    const { previous_response_id: _, ...rest } = this.#body;
    return { ...rest, input: [...items, ...this.#rawInput] };
  }

  /**
   * A stored HTTP request on a same-format route (issue #29): the body exactly as sent (the relay
   * renames the model), so fields, values and tool types polygate does not know reach the
   * upstream, which stores the response too. A `previous_response_id` is relayed as sent only
   * when its response was relayed to this same provider (the upstream has it); an item reference,
   * or a chain that began elsewhere, is resolved by polygate: the route translates.
   */
  #storedRelayBody(route: Route): Record<string, unknown> | undefined {
    const sent = this.#storedRelay;
    if (!sent || (Array.isArray(sent.input) && sent.input.some(this.#wire.isItemReference))) return undefined;
    if (this.#previousId === null) return sent;
    return this.#previous?.relayed === true && this.#previous.provider === route.provider ? sent : undefined;
  }

  /** A relayed JSON answer: kept like a stream's final event. */
  observeJson(body: unknown): void {
    if (isItem(body) && typeof body.id === 'string') this.#final = body;
  }

  /**
   * A relayed stream is remembered like a translated one, from its final event (the socket always
   * streams), its IR decoded from the upstream's response object.
   */
  async relayEnded(done: {
    route: Route;
    status: number;
    outcome: 'ok' | 'client_closed' | 'upstream_cut';
  }): Promise<void> {
    if (done.status >= 400) return;
    this.#relayed = this.#storedRelay !== undefined;
    const outcome = done.outcome === 'client_closed' ? 'client_closed' : 'other';
    await this.#ended(done.route, outcome, (final) => outputParts(this.#wire, final));
  }

  async completed(done: {
    request: ChatRequest;
    route: Route;
    body: unknown;
    result: { parts: Part[] };
  }): Promise<void> {
    const response = done.body as Record<string, unknown>;
    await this.#save(done.route, response, done.result.parts);
  }

  observeFrames(frames: SseFrame[]): void {
    // An answer kept nowhere (`store: false`, not over a socket: #save keeps nothing) needs no copy
    // of its response object parsed back from the created and final events.
    if (!this.#store && !this.#memory) return;
    for (const f of frames) {
      if (f.event === 'response.created')
        this.#created = (JSON.parse(f.data) as { response: Record<string, unknown> }).response;
      else if (f.event !== undefined && finalEvents.has(f.event))
        this.#final = (JSON.parse(f.data) as { response: Record<string, unknown> }).response;
    }
  }

  /** A stream is stored with its real ending: never `completed` unless `response.completed` was sent. */
  async streamEnded(done: {
    request: ChatRequest;
    route: Route;
    parts: Part[];
    outcome: 'ok' | 'error' | 'client_closed';
  }): Promise<void> {
    await this.#ended(done.route, done.outcome === 'client_closed' ? 'client_closed' : 'other', () => done.parts);
  }

  /** Saves a stream's response from its final event, or as cancelled/failed from its start when none came. */
  async #ended(
    route: Route,
    outcome: 'client_closed' | 'other',
    parts: (final: Record<string, unknown>) => Part[],
  ): Promise<void> {
    // A client that left before the end made the stream end, whatever the encoder wrote after.
    const final = outcome === 'client_closed' && this.#final?.status !== 'completed' ? undefined : this.#final;
    if (final) return this.#save(route, final, final.status === 'completed' ? parts(final) : undefined);
    if (!this.#created) return;
    const status = outcome === 'client_closed' ? 'cancelled' : 'failed';
    await this.#save(route, { ...this.#created, status, output: [] }, undefined);
  }

  async #save(route: Route, response: Record<string, unknown>, output: Part[] | undefined): Promise<void> {
    if ((!this.#store && !this.#memory) || typeof response.id !== 'string') return;
    const status =
      (['completed', 'incomplete', 'failed', 'cancelled'] as const).find((s) => s === response.status) ?? 'failed';
    const answer: Message[] = output && output.length > 0 ? [{ role: 'assistant', parts: output }] : [];
    const turn: StoredTurn = {
      previousId: this.#previousId,
      messages: [...this.#own, ...answer],
      producers: [...this.#own.map(() => ''), ...answer.map(() => route.provider)],
      chainChars: this.#chain.chars + conversationChars(answer),
      length: this.#chain.length,
    };
    // A socket's turns keep their wire items: the output items are Responses items whether relayed
    // or encoded by polygate (the client's format is Responses either way).
    if (this.#memory) {
      const items = output && Array.isArray(response.output) ? response.output.filter(isItem) : [];
      turn.raw = { input: this.#rawInput, output: items, provider: route.provider };
    }
    const record: StoredResponse = {
      id: response.id,
      model: String(response.model ?? ''),
      provider: route.provider,
      upstreamModel: route.model,
      status,
      createdAt: typeof response.created_at === 'number' ? response.created_at : Math.floor(Date.now() / 1000),
      response,
      inputItems: normalizeInputItems(this.#input),
      ...(this.#relayed ? { relayed: true } : {}),
    };
    if (this.#memory) await this.#remember(this.#memory, record, turn);
    if (!this.#store) return;
    try {
      await this.#repo.save(this.#workspace, record, turn, this.#maxWorkspaceBytes);
    } catch (e) {
      if (!(e instanceof StoreQuotaError)) throw e;
      // The answer was (or is being) sent: the client keeps it, it only cannot be continued or
      // retrieved. A non-streamed answer carries the warning header; a stream's headers are gone.
      this.#warn?.(
        'store',
        `response '${response.id}' was not stored: this workspace's stored responses hold ${e.used} bytes and this response (${e.adding}) would pass the ${e.limit} bytes a workspace may store (limits.max_workspace_stored_bytes)`,
      );
    }
  }

  /**
   * Kept on the socket whatever `store` says; past `max_socket_bytes` (or, all sockets together,
   * `max_total_bytes`) it is not kept and a later turn naming it gets previous_response_not_found.
   */
  async #remember(memory: SocketMemory, record: StoredResponse, turn: StoredTurn): Promise<void> {
    const room = memory.room();
    try {
      await memory.local.save(this.#workspace, record, turn, room.limit);
    } catch (e) {
      if (!(e instanceof StoreQuotaError)) throw e;
      this.#warn?.(
        'previous_response_id',
        `response '${record.id}' is not kept on this socket: its memory holds ${e.used} bytes and this one (${e.adding}) would pass what is left under responses_websocket.${room.key}`,
      );
    }
  }
}

const isItem = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The IR parts of a Responses response object's output (a relayed answer's, for a later translated route). */
function outputParts(wire: ConversationWire, response: Record<string, unknown>): Part[] {
  try {
    return wire.decodeResponse(response).parts;
  } catch {
    return [];
  }
}

/**
 * What a turn adds to its chain's size: its characters plus a flat 4096 per turn, so the cap also
 * bounds how many turns reading a conversation walks (2048 at the default 8 MiB).
 */
const turnChars = (messages: Message[]): number => (messages.length === 0 ? 0 : 4096) + conversationChars(messages);
