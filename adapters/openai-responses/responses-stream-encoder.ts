// IR stream → Responses streaming events (https://platform.openai.com/docs/api-reference/responses-streaming).
// Order: response.created → response.in_progress → per output item: output_item.added, then
// content_part.added / output_text.delta… / output_text.done / content_part.done (messages),
// function_call_arguments.delta… / .done (function calls), reasoning_summary_part.added /
// reasoning_summary_text.delta… / .done / reasoning_summary_part.done (reasoning), then
// output_item.done → response.completed (or response.incomplete / response.failed). Every event
// carries `sequence_number`, counting from 0. Frames are `event: <type>` + `data: <json>`.
import type {
  ChatRequest,
  Citation,
  HostedCallPart,
  HostedResultPart,
  ReasoningPart,
} from '../../src/ir/chat-request.ts';
import type { ReasoningOrigin } from '../../src/ir/wire-format.ts';
import type { ChatFinish, Usage } from '../../src/ir/chat-result.ts';
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';
import type { ClientStreamEncoder, SseFrame } from '../shared/chat-adapter.ts';
import { outcomeOf, responseEnvelope, responseIdOf, type Outcome } from './encode-response-object.ts';
import { annotationOf, encryptedContentOf } from './encode-output-items.ts';
import { completeWebSearchCall, webSearchCallOf } from './web-search-items.ts';
import { responsesErrorCode } from './responses-error.ts';
import { readEcho } from './responses-extensions.ts';
import { isReasoningItemId, type IdSource } from './responses-ids.ts';
import { customInput, identityOf, readToolIdentities, wireToolName, type ToolIdentities } from './tool-identities.ts';
import type {
  CustomToolCallItem,
  FunctionCallItem,
  MessageItem,
  OutputItem,
  OutputText,
  ReasoningItem,
  RefusalContent,
  WebSearchCallItem,
} from './responses-wire-types.ts';

/** `deltaHead`: the text deltas' JSON up to the delta, for the part at `deltaAt` (made at its first delta). */
type OpenMessage = {
  index: number;
  item: MessageItem;
  part: OutputText | RefusalContent | undefined;
  deltaHead?: string;
  deltaAt?: number;
};
/**
 * A custom (free-form) tool's call arrives as IR JSON arguments `{"input": …}` (tool-identities.ts):
 * they are gathered in `args` and its input sent as one delta when the call ends.
 */
type OpenTool = { index: number; item: FunctionCallItem | CustomToolCallItem; args: string };
/** A reasoning item is announced at its first delta, signature or end, so an OpenAI item id can still name it. */
type OpenReasoning = {
  index: number | undefined;
  item: ReasoningItem;
  text: string;
  partOpen: boolean;
  origin: ReasoningOrigin;
  signature?: string;
  redacted?: string;
};

export class ResponsesStreamEncoder implements ClientStreamEncoder {
  readonly #request: ChatRequest;
  readonly #ids: IdSource;
  readonly #includeEncrypted: boolean;
  readonly #toolIdentities: ToolIdentities;
  #seq = 0;
  #frames: SseFrame[] = [];
  #id: string | undefined;
  #createdAt = 0;
  #ended = false;
  readonly #output: OutputItem[] = [];
  #message: OpenMessage | undefined;
  readonly #tools = new Map<number, OpenTool>();
  readonly #reasoning = new Map<number, OpenReasoning>();
  /** polygate's web searches (docs/hosted-tools.md) by call id, and where each text part began. */
  readonly #searches = new Map<string, { index: number; item: WebSearchCallItem }>();
  readonly #textOffsets = new Map<number, number>();
  #usage: Partial<Usage> = {};

  constructor(request: ChatRequest, ids: IdSource) {
    this.#request = request;
    this.#ids = ids;
    this.#includeEncrypted = readEcho(request).include.includes('reasoning.encrypted_content');
    this.#toolIdentities = readToolIdentities(request);
  }

  push(event: StreamEvent): SseFrame[] {
    if (this.#ended) return [];
    this.#frames = [];
    this.#begin(event.type === 'start' ? event.id : undefined);
    switch (event.type) {
      case 'start':
        if (event.usage) this.#usage = { ...this.#usage, ...event.usage };
        break;
      case 'text-start':
        this.#text('');
        // Citations of this part count from where its text begins in the output_text.
        this.#textOffsets.set(event.index, (this.#message?.part as OutputText | undefined)?.text.length ?? 0);
        break;
      case 'text-delta':
        this.#text(event.text);
        break;
      case 'text-end':
        // The message stays open: following text continues the same output_text.
        break;
      case 'refusal-delta':
        this.#refusal(event.text);
        break;
      case 'reasoning-start':
        this.#closeMessage();
        this.#reasoning.set(event.index, {
          index: undefined,
          item: { id: '', type: 'reasoning', summary: [] },
          text: '',
          partOpen: false,
          origin: event.origin,
          ...(event.redacted !== undefined ? { redacted: event.redacted } : {}),
        });
        break;
      case 'reasoning-signature':
        this.#reasoningSignature(event.index, event.signature);
        break;
      case 'reasoning-delta':
        this.#reasoningDelta(event.index, event.text);
        break;
      case 'reasoning-end':
        this.#reasoningEnd(event.index, event.encrypted);
        break;
      case 'tool-input-start':
        this.#toolStart(event.index, event.id, event.name);
        break;
      case 'tool-input-delta':
        this.#toolDelta(event.index, event.json);
        break;
      case 'tool-input-end':
        this.#toolEnd(event.index);
        break;
      case 'usage':
        this.#usage = { ...this.#usage, ...event.usage };
        break;
      case 'finish':
        this.#finish(event.finish, event.usage);
        break;
      case 'error':
        this.#error(event.error);
        break;
      case 'text-citation':
        this.#citation(event.index, event.citation);
        break;
      case 'hosted-call':
        this.#hostedCall(event.part);
        break;
      case 'hosted-result':
        this.#hostedResult(event.part);
        break;
      default:
        assertNever(event, 'stream event');
    }
    return this.#frames;
  }

  /**
   * Serializes the event at once: an item or part that changes later (more text, its status) is
   * written as it is now, with no copy of it taken first (session 12: a structuredClone per
   * snapshot was ~5 KB a stream of garbage and gave the same bytes).
   */
  #emit(type: string, fields: Record<string, unknown>): void {
    this.#frames.push({ event: type, data: JSON.stringify({ type, ...fields, sequence_number: this.#seq++ }) });
  }

  #begin(upstreamId: string | undefined): void {
    if (this.#id !== undefined) return;
    this.#id = responseIdOf(upstreamId, this.#ids);
    this.#createdAt = this.#ids.now();
    const response = responseEnvelope(this.#request, {
      id: this.#id,
      createdAt: this.#createdAt,
      outcome: 'in_progress',
      output: [],
      usage: null,
    });
    this.#emit('response.created', { response });
    this.#emit('response.in_progress', { response });
  }

  #hostedCall(call: HostedCallPart): void {
    this.#closeMessage();
    const item = webSearchCallOf(this.#ids.newId('ws'), call);
    const index = this.#addItem(item);
    this.#searches.set(call.id, { index, item });
    this.#emit('response.web_search_call.in_progress', { output_index: index, item_id: item.id });
    this.#emit('response.web_search_call.searching', { output_index: index, item_id: item.id });
  }

  #hostedResult(r: HostedResultPart): void {
    const s = this.#searches.get(r.callId);
    if (!s) return;
    completeWebSearchCall(s.item, r);
    this.#emit('response.web_search_call.completed', { output_index: s.index, item_id: s.item.id });
    this.#emit('response.output_item.done', { output_index: s.index, item: s.item });
  }

  #citation(irIndex: number, c: Citation): void {
    const m = this.#message;
    if (m?.part?.type !== 'output_text') return;
    const a = annotationOf(c, this.#textOffsets.get(irIndex) ?? 0, m.part.text.length);
    if (!a) return;
    m.part.annotations.push(a);
    this.#emit('response.output_text.annotation.added', {
      item_id: m.item.id,
      output_index: m.index,
      content_index: m.item.content.length - 1,
      annotation_index: m.part.annotations.length - 1,
      annotation: a,
    });
  }

  #addItem(item: OutputItem): number {
    const index = this.#output.length;
    this.#output.push(item);
    this.#emit('response.output_item.added', { output_index: index, item: item });
    return index;
  }

  #openMessage(): OpenMessage {
    if (!this.#message) {
      const item: MessageItem = {
        id: this.#ids.newId('msg'),
        type: 'message',
        status: 'in_progress',
        content: [],
        role: 'assistant',
      };
      this.#message = { index: this.#addItem(item), item, part: undefined };
    }
    return this.#message;
  }

  #openPart(m: OpenMessage, part: OutputText | RefusalContent): void {
    this.#closePart(m);
    m.item.content.push(part);
    m.part = part;
    this.#emit('response.content_part.added', {
      item_id: m.item.id,
      output_index: m.index,
      content_index: m.item.content.length - 1,
      part: part,
    });
  }

  #closePart(m: OpenMessage): void {
    const part = m.part;
    if (!part) return;
    const at = { item_id: m.item.id, output_index: m.index, content_index: m.item.content.length - 1 };
    if (part.type === 'output_text') this.#emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
    else this.#emit('response.refusal.done', { ...at, refusal: part.refusal });
    this.#emit('response.content_part.done', { ...at, part: part });
    m.part = undefined;
  }

  #closeMessage(status: 'completed' | 'incomplete' = 'completed'): void {
    const m = this.#message;
    if (!m) return;
    this.#closePart(m);
    m.item.status = status;
    this.#emit('response.output_item.done', { output_index: m.index, item: m.item });
    this.#message = undefined;
  }

  #text(delta: string): void {
    const m = this.#openMessage();
    if (m.part?.type !== 'output_text')
      this.#openPart(m, { type: 'output_text', annotations: [], logprobs: [], text: '' });
    const part = m.part as OutputText;
    if (delta === '') return;
    part.text += delta;
    // The frame of nearly every upstream chunk, built as text: the bytes `#emit` makes of
    // { item_id, output_index, content_index, delta, logprobs: [] }, without its objects (issue #28).
    const at = m.item.content.length - 1;
    if (m.deltaAt !== at || m.deltaHead === undefined) {
      m.deltaAt = at;
      m.deltaHead = [
        '{"type":"response.output_text.delta","item_id":',
        JSON.stringify(m.item.id),
        ',"output_index":',
        m.index,
        ',"content_index":',
        at,
        ',"delta":',
      ].join('');
    }
    const data = `${m.deltaHead}${JSON.stringify(delta)},"logprobs":[],"sequence_number":${this.#seq++}}`;
    this.#frames.push({ event: 'response.output_text.delta', data });
  }

  #refusal(delta: string): void {
    const m = this.#openMessage();
    if (m.part?.type !== 'refusal') this.#openPart(m, { type: 'refusal', refusal: '' });
    const part = m.part as RefusalContent;
    part.refusal += delta;
    this.#emit('response.refusal.delta', {
      item_id: m.item.id,
      output_index: m.index,
      content_index: m.item.content.length - 1,
      delta,
    });
  }

  #announce(r: OpenReasoning): number {
    if (r.index === undefined) {
      if (r.item.id === '') r.item.id = this.#ids.newId('rs');
      r.index = this.#addItem(r.item);
    }
    return r.index;
  }

  #reasoningSignature(irIndex: number, signature: string): void {
    const r = this.#reasoning.get(irIndex);
    if (!r) return;
    // OpenAI's "signature" is the item id its encrypted_content is bound to: it names the item.
    // Any other provider's is kept, to be sealed into encrypted_content at the end.
    if (r.origin === 'openai-responses') {
      if (r.index === undefined && isReasoningItemId(signature)) r.item.id = signature;
    } else r.signature = signature;
  }

  #reasoningDelta(irIndex: number, delta: string): void {
    const r = this.#reasoning.get(irIndex);
    if (!r) return;
    const index = this.#announce(r);
    const at = { item_id: r.item.id, output_index: index, summary_index: 0 };
    if (!r.partOpen) {
      r.partOpen = true;
      this.#emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    }
    r.text += delta;
    this.#emit('response.reasoning_summary_text.delta', { ...at, delta });
  }

  #reasoningEnd(
    irIndex: number,
    encrypted: string | undefined,
    status: 'completed' | 'incomplete' = 'completed',
  ): void {
    const r = this.#reasoning.get(irIndex);
    if (!r) return;
    this.#reasoning.delete(irIndex);
    // Never announced and cut short: nothing to show.
    if (status === 'incomplete' && r.index === undefined) return;
    const index = this.#announce(r);
    if (r.partOpen) {
      const at = { item_id: r.item.id, output_index: index, summary_index: 0 };
      this.#emit('response.reasoning_summary_text.done', { ...at, text: r.text });
      this.#emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: r.text } });
    }
    r.item.summary = r.text ? [{ type: 'summary_text', text: r.text }] : [];
    if (this.#includeEncrypted) {
      const part: ReasoningPart = { type: 'reasoning', text: r.text, origin: r.origin };
      if (r.signature !== undefined) part.signature = r.signature;
      if (r.redacted !== undefined) part.redacted = r.redacted;
      if (encrypted !== undefined) part.encrypted = encrypted;
      r.item.encrypted_content = encryptedContentOf(part);
    }
    if (status === 'completed') this.#emit('response.output_item.done', { output_index: index, item: r.item });
  }

  #toolStart(irIndex: number, callId: string, name: string): void {
    this.#closeMessage();
    const wire = wireToolName(name, this.#toolIdentities);
    const item: FunctionCallItem | CustomToolCallItem = identityOf(name, this.#toolIdentities)?.custom
      ? {
          id: this.#ids.newId('ctc'),
          type: 'custom_tool_call',
          status: 'in_progress',
          call_id: callId,
          input: '',
          ...wire,
        }
      : {
          id: this.#ids.newId('fc'),
          type: 'function_call',
          status: 'in_progress',
          arguments: '',
          call_id: callId,
          ...wire,
        };
    this.#tools.set(irIndex, { index: this.#addItem(item), item, args: '' });
  }

  #toolDelta(irIndex: number, delta: string): void {
    const t = this.#tools.get(irIndex);
    if (!t || delta === '') return;
    t.args += delta;
    if (t.item.type !== 'function_call') return;
    t.item.arguments += delta;
    this.#emit('response.function_call_arguments.delta', { item_id: t.item.id, output_index: t.index, delta });
  }

  #toolEnd(irIndex: number, status: 'completed' | 'incomplete' = 'completed'): void {
    const t = this.#tools.get(irIndex);
    if (!t) return;
    this.#tools.delete(irIndex);
    t.item.status = status;
    if (t.item.type === 'custom_tool_call') t.item.input = customInput(t.args);
    if (status === 'incomplete') return;
    if (t.item.type === 'function_call') {
      this.#emit('response.function_call_arguments.done', {
        item_id: t.item.id,
        name: t.item.name,
        output_index: t.index,
        arguments: t.item.arguments,
      });
    } else {
      this.#emit('response.custom_tool_call_input.delta', {
        item_id: t.item.id,
        output_index: t.index,
        delta: t.item.input,
      });
      this.#emit('response.custom_tool_call_input.done', {
        item_id: t.item.id,
        output_index: t.index,
        input: t.item.input,
      });
    }
    this.#emit('response.output_item.done', { output_index: t.index, item: t.item });
  }

  /** Closes what is still open (an upstream may leave parts unterminated before its finish). */
  #closeAll(status: 'completed' | 'incomplete'): void {
    if (status === 'completed') this.#closeMessage();
    else if (this.#message) this.#message.item.status = 'incomplete';
    for (const i of [...this.#reasoning.keys()]) this.#reasoningEnd(i, undefined, status);
    for (const i of [...this.#tools.keys()]) this.#toolEnd(i, status);
  }

  #finish(finish: ChatFinish, usage: Usage): void {
    this.#closeAll('completed');
    const outcome = outcomeOf(finish);
    const type =
      outcome.status === 'incomplete'
        ? 'response.incomplete'
        : outcome.status === 'failed'
          ? 'response.failed'
          : 'response.completed';
    this.#terminal(type, outcome, usage);
  }

  /** An error mid-stream: OpenAI's `error` event, then response.failed with the partial output. */
  #error(err: GatewayError): void {
    this.#closeAll('incomplete');
    const code = responsesErrorCode(err);
    this.#emit('error', { code, message: err.message, param: err.param });
    const usage =
      this.#usage.inputTokens !== undefined || this.#usage.outputTokens !== undefined
        ? { inputTokens: 0, outputTokens: 0, ...this.#usage }
        : null;
    this.#terminal(
      'response.failed',
      { status: 'failed', incomplete: null, error: { code, message: err.message } },
      usage,
    );
  }

  #terminal(type: string, outcome: Outcome, usage: Usage | null): void {
    const response = responseEnvelope(this.#request, {
      id: this.#id ?? '',
      createdAt: this.#createdAt,
      outcome,
      output: this.#output,
      usage,
    });
    this.#emit(type, { response });
    this.#ended = true;
  }
}
