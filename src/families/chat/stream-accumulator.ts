import type { Part } from '../../ir/chat-request.ts';
import { assertNever, type StreamEvent } from '../../ir/stream-event.ts';

/** Rebuilds the parts of a streamed answer from its IR events, for whatever must keep it. */
export class StreamAccumulator {
  readonly #parts = new Map<number, Part>();

  push(e: StreamEvent): void {
    switch (e.type) {
      case 'text-start':
        this.#parts.set(e.index, { type: 'text', text: '' });
        return;
      case 'text-delta':
        this.#append(e.index, 'text', e.text);
        return;
      case 'reasoning-start':
        this.#parts.set(e.index, {
          type: 'reasoning',
          text: '',
          ...(e.redacted ? { redacted: e.redacted } : {}),
          origin: e.origin,
        });
        return;
      case 'reasoning-delta':
        this.#append(e.index, 'reasoning', e.text);
        return;
      case 'reasoning-signature': {
        const p = this.#parts.get(e.index);
        if (p?.type === 'reasoning') p.signature = (p.signature ?? '') + e.signature;
        return;
      }
      case 'reasoning-end': {
        const p = this.#parts.get(e.index);
        if (p?.type === 'reasoning' && e.encrypted) p.encrypted = e.encrypted;
        return;
      }
      case 'tool-input-start':
        this.#parts.set(e.index, { type: 'tool-call', id: e.id, name: e.name, args: '' });
        return;
      case 'tool-input-delta': {
        const p = this.#parts.get(e.index);
        if (p?.type === 'tool-call') p.args += e.json;
        return;
      }
      case 'refusal-delta': {
        const p = this.#parts.get(e.index);
        if (p?.type === 'refusal') p.text += e.text;
        else this.#parts.set(e.index, { type: 'refusal', text: e.text });
        return;
      }
      case 'text-citation': {
        const p = this.#parts.get(e.index);
        if (p?.type === 'text') p.citations = [...(p.citations ?? []), e.citation];
        return;
      }
      case 'hosted-call':
      case 'hosted-result':
        this.#parts.set(e.index, e.part);
        return;
      case 'start':
      case 'text-end':
      case 'tool-input-end':
      case 'usage':
      case 'finish':
      case 'error':
        return;
      default:
        assertNever(e, 'stream event');
    }
  }

  #append(index: number, type: 'text' | 'reasoning', text: string): void {
    const p = this.#parts.get(index);
    if (p?.type === type) p.text += text;
  }

  parts(): Part[] {
    return [...this.#parts.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p);
  }
}
