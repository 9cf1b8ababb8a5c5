// Chat Completions stream (`data: {chat.completion.chunk}` … `data: [DONE]`) → IR stream events
// (https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
//
// A small state machine: one method per kind of delta. Chunks carry no part boundaries, so a
// part closes when another kind of delta arrives or the finish_reason does. The usage chunk
// (choices: [], usage) comes AFTER the finish_reason chunk, so `finish` waits for `[DONE]`.
import type { ChatFinish, Usage } from '../../src/ir/chat-result.ts';
import { emptyUsage } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';
import type { UpstreamStreamDecoder } from '../shared/chat-adapter.ts';
import { firstAtIndexZero, isObject, type Json } from '../shared/narrow.ts';
import { decodeChatStreamError } from './chat-error.ts';
import { finishOfChatReason } from './chat-finish-reason.ts';
import { decodeChatUsage } from './chat-usage.ts';
import { DecodedEvents } from '../shared/decoded-events.ts';
import { frameObject } from '../shared/frame-json.ts';
import { ChatTextTemplate } from './chat-text-template.ts';

type OpenPart =
  { kind: 'text' | 'reasoning' | 'refusal'; index: number } | { kind: 'tool'; index: number; wireIndex: number };
type ToolState = { index: number; closed: boolean };

export class ChatStreamDecoder implements UpstreamStreamDecoder {
  readonly #out = new DecodedEvents();
  #started = false;
  #nextIndex = 0;
  #open: OpenPart | undefined;
  /**
   * Tool calls by the wire's `tool_calls[].index`: fragments are matched by index, not by id. Made
   * at the first call, as the next map is (issue #28: most streams call no tool, and two empty maps
   * were ~120 bytes each a stream).
   */
  #tools: Map<number, ToolState> | undefined;
  /** Wire index by call id, for servers that omit `index`. */
  #toolIds: Map<string, number> | undefined;
  #finish: ChatFinish | undefined;
  #usage: Usage | undefined;
  /** Text chunks read without parsing them whole (chat-text-template.ts). */
  readonly #template = new ChatTextTemplate();

  push(frame: { event?: string; data: string }): StreamEvent[] {
    if (this.#out.over) return [];
    const data = frame.data.trim();
    if (data === '[DONE]') this.onDone();
    else {
      const text = this.#template.match(data);
      if (text === undefined) this.onChunk(data);
      else if (text !== '') this.onContent(text);
    }
    return this.#out.take();
  }

  end(): StreamEvent[] {
    if (this.#out.over) return [];
    // Some compatible servers close the stream after the finish chunk without `[DONE]`.
    if (this.#finish) this.onDone();
    else
      this.#out.fail(
        new GatewayError('upstream', 'openai-chat upstream stream ended early (no finish_reason and no [DONE])'),
      );
    return this.#out.take();
  }

  onChunk(data: string): void {
    const chunk = frameObject(data, 'openai-chat upstream sent a stream event');
    if (chunk instanceof GatewayError) return this.#out.fail(chunk);
    if (chunk.error !== undefined && chunk.error !== null) return this.onError(chunk);
    this.onStart(chunk);
    const choice = firstAtIndexZero(chunk.choices);
    // Whether the decoder reads nothing from this chunk but a text (`#template`).
    let textOnly = choice !== undefined && !isObject(chunk.usage);
    if (choice !== undefined) {
      const delta = isObject(choice.delta) ? choice.delta : {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning !== '') this.onReasoning(reasoning);
      // The first chunk's `content: ""` opens nothing: a tool-call-only answer has no text part.
      if (typeof delta.content === 'string' && delta.content !== '') this.onContent(delta.content);
      if (typeof delta.refusal === 'string' && delta.refusal !== '') this.onRefusal(delta.refusal);
      if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) if (isObject(tc)) this.onToolCall(tc);
      if (isObject(delta.function_call))
        this.onToolCall({ index: 0, id: 'function_call', function: delta.function_call });
      if (typeof choice.finish_reason === 'string') this.onFinishReason(choice.finish_reason);
      textOnly &&=
        typeof delta.content === 'string' &&
        delta.content !== '' &&
        !(typeof reasoning === 'string' && reasoning !== '') &&
        !(typeof delta.refusal === 'string' && delta.refusal !== '') &&
        !Array.isArray(delta.tool_calls) &&
        !isObject(delta.function_call) &&
        typeof choice.finish_reason !== 'string';
      if (textOnly) this.#template.learn(data, delta.content as string);
    }
    if (isObject(chunk.usage)) this.onUsage(chunk.usage);
  }

  onStart(chunk: Json): void {
    if (this.#started) return;
    this.#started = true;
    this.#out.push({
      type: 'start',
      id: typeof chunk.id === 'string' ? chunk.id : '',
      model: typeof chunk.model === 'string' ? chunk.model : '',
    });
  }

  onReasoning(text: string): void {
    const index = this.#openPart('reasoning');
    this.#out.push({ type: 'reasoning-delta', index, text });
  }

  onContent(text: string): void {
    const index = this.#openPart('text');
    this.#out.push({ type: 'text-delta', index, text });
  }

  onRefusal(text: string): void {
    const index = this.#openPart('refusal');
    this.#out.push({ type: 'refusal-delta', index, text });
  }

  /** The first delta of an index carries id and name; later ones carry argument fragments only. */
  onToolCall(tc: Json): void {
    const fn = isObject(tc.function) ? tc.function : {};
    const fragment = typeof fn.arguments === 'string' ? fn.arguments : '';
    const wireIndex = typeof tc.index === 'number' ? tc.index : this.#wireIndexWithoutIndex(tc);
    const known = this.#tools?.get(wireIndex);
    if (!known) {
      this.#closeOpen();
      const index = this.#nextIndex++;
      (this.#tools ??= new Map()).set(wireIndex, { index, closed: false });
      this.#open = { kind: 'tool', index, wireIndex };
      const id = typeof tc.id === 'string' ? tc.id : `call_${wireIndex}`;
      (this.#toolIds ??= new Map()).set(id, wireIndex);
      this.#out.push({ type: 'tool-input-start', index, id, name: typeof fn.name === 'string' ? fn.name : '' });
      if (fragment !== '') this.#out.push({ type: 'tool-input-delta', index, json: fragment });
      return;
    }
    if (fragment === '') return;
    if (known.closed) {
      // IR parts are sequential; a fragment for a call already closed cannot be placed.
      return this.#out.fail(
        new GatewayError('upstream', `openai-chat upstream sent arguments for tool call ${wireIndex} after it ended`),
      );
    }
    this.#out.push({ type: 'tool-input-delta', index: known.index, json: fragment });
  }

  onFinishReason(raw: string): void {
    this.#closeOpen();
    this.#finish = finishOfChatReason(raw);
  }

  onUsage(usage: Json): void {
    this.#usage = decodeChatUsage(usage);
  }

  onDone(): void {
    if (!this.#started) this.#out.push({ type: 'start', id: '', model: '' });
    this.#closeOpen();
    this.#out.over = true;
    // `[DONE]` without a finish_reason: the stream ended by protocol, the reason is unknown.
    this.#out.push({
      type: 'finish',
      finish: this.#finish ?? { reason: 'other', raw: '' },
      usage: this.#usage ?? emptyUsage(),
    });
  }

  onError(chunk: Json): void {
    this.#out.fail(decodeChatStreamError(chunk));
  }

  /** Servers that omit `index` (some compatible ones) name the call by id, or continue the open one. */
  #wireIndexWithoutIndex(tc: Json): number {
    const calls = this.#tools?.size ?? 0;
    if (typeof tc.id === 'string') return this.#toolIds?.get(tc.id) ?? calls;
    return this.#open?.kind === 'tool' ? this.#open.wireIndex : calls;
  }

  #openPart(kind: 'text' | 'reasoning' | 'refusal'): number {
    if (this.#open?.kind === kind) return this.#open.index;
    this.#closeOpen();
    const index = this.#nextIndex++;
    this.#open = { kind, index };
    if (kind === 'text') this.#out.push({ type: 'text-start', index });
    if (kind === 'reasoning') this.#out.push({ type: 'reasoning-start', index, origin: 'openai-chat' });
    return index;
  }

  #closeOpen(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    switch (open.kind) {
      case 'text':
        this.#out.push({ type: 'text-end', index: open.index });
        break;
      case 'reasoning':
        this.#out.push({ type: 'reasoning-end', index: open.index });
        break;
      case 'tool': {
        const t = this.#tools?.get(open.wireIndex);
        if (t) t.closed = true;
        this.#out.push({ type: 'tool-input-end', index: open.index });
        break;
      }
      case 'refusal':
        // The IR's refusal has deltas only; nothing to close.
        break;
      default:
        assertNever(open, 'open part');
    }
  }
}
