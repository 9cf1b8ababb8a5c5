// An upstream's Responses event stream → IR stream events
// (https://platform.openai.com/docs/api-reference/responses-streaming). A small state machine: one
// method per wire event, `output_index` (and `content_index` inside messages) mapped onto IR part
// indices in the order parts open. Events it has no use for (in_progress, hosted-tool progress,
// annotation.added, …) are ignored; the stream ends with response.completed / .incomplete
// (finish with usage), response.failed or error (an error event), or early (an error from end()).
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { UpstreamStreamDecoder } from '../shared/chat-adapter.ts';
import { notJson, parseFrameJson } from '../shared/frame-json.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { decodeResponsesUsage, finishOf } from './decode-response-object.ts';
import { decodeResponsesStreamError, wireErrorOf } from './responses-error.ts';
import { irCallName } from './tool-identities.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';

type ToolItem = { kind: 'tool'; index: number; open: boolean; args: string };
type ReasoningItemState = { kind: 'reasoning'; index: number; open: boolean; parts: number; sawText: boolean };
type ItemState = { kind: 'message' } | ToolItem | ReasoningItemState;
type ContentSlot = { index: number; kind: 'text' | 'refusal'; open: boolean; text: string };

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export class ResponsesStreamDecoder implements UpstreamStreamDecoder {
  #nextIndex = 0;
  #started = false;
  #done = false;
  #calledFunctions = false;
  readonly #items = new Map<number, ItemState>();
  readonly #content = new Map<string, ContentSlot>();
  readonly #handlers: Record<string, (d: Json) => StreamEvent[]> = {
    'response.created': (d) => this.#created(d),
    'response.output_item.added': (d) => this.#outputItemAdded(d),
    'response.content_part.added': (d) => this.#contentPartAdded(d),
    'response.output_text.delta': (d) => this.#outputTextDelta(d),
    'response.output_text.done': (d) => this.#outputTextDone(d),
    'response.content_part.done': (d) => this.#closeContent(num(d.output_index), num(d.content_index)),
    'response.refusal.delta': (d) => this.#refusalDelta(d),
    'response.function_call_arguments.delta': (d) => this.#argumentsDelta(d),
    'response.function_call_arguments.done': (d) => this.#argumentsDone(d),
    'response.reasoning_summary_part.added': (d) => this.#summaryPartAdded(d),
    'response.reasoning_summary_text.delta': (d) => this.#reasoningDelta(d),
    'response.reasoning_text.delta': (d) => this.#reasoningDelta(d),
    'response.output_item.done': (d) => this.#outputItemDone(d),
    'response.completed': (d) => this.#finished(d),
    'response.incomplete': (d) => this.#finished(d),
    'response.failed': (d) => this.#failed(d),
    error: (d) => this.#error(d),
  };

  push(frame: { event?: string; data: string }): StreamEvent[] {
    if (this.#done) return [];
    const data = parseFrameJson(frame.data);
    if (data === notJson) {
      this.#done = true;
      return [
        {
          type: 'error',
          error: new GatewayError('upstream', 'the openai-responses upstream sent an event that is not JSON'),
        },
      ];
    }
    if (!isObject(data)) return [];
    const type = frame.event ?? str(data.type);
    // Own keys only: an event named `constructor` or `__proto__` is unknown, not Object.prototype's.
    const handler = Object.hasOwn(this.#handlers, type) ? this.#handlers[type] : undefined;
    if (!handler) return [];
    const out: StreamEvent[] = [];
    if (!this.#started && type !== 'response.created') out.push(...this.#created({}));
    out.push(...handler(data));
    return out;
  }

  end(): StreamEvent[] {
    if (this.#done) return [];
    this.#done = true;
    return [
      {
        type: 'error',
        error: new GatewayError('upstream', 'the openai-responses upstream stream ended before response.completed'),
      },
    ];
  }

  #created(d: Json): StreamEvent[] {
    if (this.#started) return [];
    this.#started = true;
    const r = isObject(d.response) ? d.response : {};
    return [{ type: 'start', id: str(r.id), model: str(r.model) }];
  }

  #outputItemAdded(d: Json): StreamEvent[] {
    const item = isObject(d.item) ? d.item : {};
    const at = num(d.output_index);
    switch (item.type) {
      case 'message':
        this.#items.set(at, { kind: 'message' });
        return [];
      case 'function_call': {
        const state: ToolItem = { kind: 'tool', index: this.#nextIndex++, open: true, args: str(item.arguments) };
        this.#items.set(at, state);
        this.#calledFunctions = true;
        const out: StreamEvent[] = [
          { type: 'tool-input-start', index: state.index, id: str(item.call_id), name: irCallName(item) },
        ];
        if (state.args) out.push({ type: 'tool-input-delta', index: state.index, json: state.args });
        return out;
      }
      case 'reasoning': {
        const state: ReasoningItemState = {
          kind: 'reasoning',
          index: this.#nextIndex++,
          open: true,
          parts: 0,
          sawText: false,
        };
        this.#items.set(at, state);
        const out: StreamEvent[] = [{ type: 'reasoning-start', index: state.index, origin: 'openai-responses' }];
        // The item id names the reasoning (its encrypted content is bound to it); see decode-response-object.ts.
        if (typeof item.id === 'string')
          out.push({ type: 'reasoning-signature', index: state.index, signature: item.id });
        return out;
      }
      default:
        return [];
    }
  }

  #slot(at: number, contentIndex: number, kind: 'text' | 'refusal'): { slot: ContentSlot; opened: StreamEvent[] } {
    const key = `${at}:${contentIndex}`;
    const existing = this.#content.get(key);
    if (existing) return { slot: existing, opened: [] };
    const slot: ContentSlot = { index: this.#nextIndex++, kind, open: true, text: '' };
    this.#content.set(key, slot);
    return { slot, opened: kind === 'text' ? [{ type: 'text-start', index: slot.index }] : [] };
  }

  #contentPartAdded(d: Json): StreamEvent[] {
    const part = isObject(d.part) ? d.part : {};
    if (part.type !== 'output_text' && part.type !== 'refusal') return [];
    return this.#slot(num(d.output_index), num(d.content_index), part.type === 'output_text' ? 'text' : 'refusal')
      .opened;
  }

  #outputTextDelta(d: Json): StreamEvent[] {
    const { slot, opened } = this.#slot(num(d.output_index), num(d.content_index), 'text');
    const delta = str(d.delta);
    slot.text += delta;
    return delta ? [...opened, { type: 'text-delta', index: slot.index, text: delta }] : opened;
  }

  /** A server that sends only the final text still gets it across. */
  #outputTextDone(d: Json): StreamEvent[] {
    const { slot, opened } = this.#slot(num(d.output_index), num(d.content_index), 'text');
    const full = str(d.text);
    const out = [...opened];
    if (slot.text === '' && full) {
      slot.text = full;
      out.push({ type: 'text-delta', index: slot.index, text: full });
    }
    return [...out, ...this.#closeContent(num(d.output_index), num(d.content_index))];
  }

  #closeContent(at: number, contentIndex: number): StreamEvent[] {
    const slot = this.#content.get(`${at}:${contentIndex}`);
    if (!slot || !slot.open) return [];
    slot.open = false;
    return slot.kind === 'text' ? [{ type: 'text-end', index: slot.index }] : [];
  }

  #refusalDelta(d: Json): StreamEvent[] {
    const { slot } = this.#slot(num(d.output_index), num(d.content_index), 'refusal');
    const delta = str(d.delta);
    return delta ? [{ type: 'refusal-delta', index: slot.index, text: delta }] : [];
  }

  #tool(d: Json): ToolItem | undefined {
    const s = this.#items.get(num(d.output_index));
    return s?.kind === 'tool' && s.open ? s : undefined;
  }

  #argumentsDelta(d: Json): StreamEvent[] {
    const t = this.#tool(d);
    const delta = str(d.delta);
    if (!t || !delta) return [];
    t.args += delta;
    return [{ type: 'tool-input-delta', index: t.index, json: delta }];
  }

  #argumentsDone(d: Json): StreamEvent[] {
    const t = this.#tool(d);
    const full = str(d.arguments);
    if (!t || t.args !== '' || !full) return [];
    t.args = full;
    return [{ type: 'tool-input-delta', index: t.index, json: full }];
  }

  #reasoning(d: Json): ReasoningItemState | undefined {
    const s = this.#items.get(num(d.output_index));
    return s?.kind === 'reasoning' && s.open ? s : undefined;
  }

  /** Summary parts are joined with a blank line, as decode-response-object.ts joins them. */
  #summaryPartAdded(d: Json): StreamEvent[] {
    const r = this.#reasoning(d);
    if (!r) return [];
    r.parts++;
    return r.parts > 1 && r.sawText ? [{ type: 'reasoning-delta', index: r.index, text: '\n\n' }] : [];
  }

  #reasoningDelta(d: Json): StreamEvent[] {
    const r = this.#reasoning(d);
    const delta = str(d.delta);
    if (!r || !delta) return [];
    r.sawText = true;
    return [{ type: 'reasoning-delta', index: r.index, text: delta }];
  }

  #outputItemDone(d: Json): StreamEvent[] {
    const at = num(d.output_index);
    const item = isObject(d.item) ? d.item : {};
    const s = this.#items.get(at);
    if (!s) return [];
    switch (s.kind) {
      case 'message': {
        const out: StreamEvent[] = [];
        for (const key of this.#content.keys())
          if (key.startsWith(`${at}:`)) out.push(...this.#closeContent(at, Number(key.slice(key.indexOf(':') + 1))));
        return out;
      }
      case 'tool': {
        if (!s.open) return [];
        const out: StreamEvent[] = [];
        const full = str(item.arguments);
        if (s.args === '' && full) out.push({ type: 'tool-input-delta', index: s.index, json: full });
        s.open = false;
        out.push({ type: 'tool-input-end', index: s.index });
        return out;
      }
      case 'reasoning': {
        if (!s.open) return [];
        const out: StreamEvent[] = [];
        const summary = Array.isArray(item.summary)
          ? item.summary
              .filter(isObject)
              .map((p) => str(p.text))
              .filter(Boolean)
          : [];
        if (!s.sawText && summary.length > 0)
          out.push({ type: 'reasoning-delta', index: s.index, text: summary.join('\n\n') });
        s.open = false;
        const encrypted = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
        out.push(
          encrypted !== undefined
            ? { type: 'reasoning-end', index: s.index, encrypted }
            : { type: 'reasoning-end', index: s.index },
        );
        return out;
      }
      default:
        return assertNever(s, 'output item state');
    }
  }

  /** Parts the upstream left open are closed before the finish. */
  #closeAll(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const [key, slot] of this.#content)
      if (slot.open) out.push(...this.#closeContent(Number(key.split(':')[0]), Number(key.split(':')[1])));
    for (const s of this.#items.values()) {
      if (s.kind === 'tool' && s.open) {
        s.open = false;
        out.push({ type: 'tool-input-end', index: s.index });
      } else if (s.kind === 'reasoning' && s.open) {
        s.open = false;
        out.push({ type: 'reasoning-end', index: s.index });
      }
    }
    return out;
  }

  #finished(d: Json): StreamEvent[] {
    this.#done = true;
    const r = isObject(d.response) ? d.response : {};
    const finish = finishOf(r.status, r.incomplete_details, this.#calledFunctions);
    return [...this.#closeAll(), { type: 'finish', finish, usage: decodeResponsesUsage(r.usage) }];
  }

  #failed(d: Json): StreamEvent[] {
    this.#done = true;
    const r = isObject(d.response) ? d.response : {};
    return [{ type: 'error', error: decodeResponsesStreamError(wireErrorOf({ error: r.error })) }];
  }

  /** OpenAI's `error` event ({code, message, param}); a response.failed follows and is not needed. */
  #error(d: Json): StreamEvent[] {
    this.#done = true;
    return [{ type: 'error', error: decodeResponsesStreamError(wireErrorOf(isObject(d.error) ? d : { error: d })) }];
  }
}
