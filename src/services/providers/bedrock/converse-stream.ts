// Bedrock ConverseStream events → IR stream events
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html).
// Each event-stream message's `:event-type` names the event and its payload is the event's JSON:
// messageStart, contentBlockStart (tool uses only), contentBlockDelta (text, toolUse.input
// fragments, reasoningContent text / signature / redactedContent), contentBlockStop, messageStop (the stop reason),
// then metadata (usage), after which the IR's finish is sent.
import { emptyUsage, type ChatFinish, type Usage } from '../../../ir/chat-result.ts';
import { GatewayError } from '../../../ir/gateway-error.ts';
import type { StreamEvent } from '../../../ir/stream-event.ts';
import { finishOfConverse, usageOfConverse } from './converse-result.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
type Block = { index: number; kind: 'text' | 'tool' | 'reasoning' };

export class ConverseStreamDecoder {
  #out: StreamEvent[] = [];
  #started = false;
  #next = 0;
  #blocks = new Map<number, Block>();
  #finish: ChatFinish | undefined;
  #usage: Usage | undefined;
  #over = false;
  readonly #model: string;

  constructor(model: string) {
    this.#model = model;
  }

  push(eventType: string, data: unknown): StreamEvent[] {
    if (this.#over) return [];
    if (!isObject(data)) return [];
    this.#start();
    switch (eventType) {
      case 'contentBlockStart':
        this.#onStart(data);
        break;
      case 'contentBlockDelta':
        this.#onDelta(data);
        break;
      case 'contentBlockStop':
        this.#close(typeof data.contentBlockIndex === 'number' ? data.contentBlockIndex : -1);
        break;
      case 'messageStop':
        for (const i of [...this.#blocks.keys()]) this.#close(i);
        this.#finish = finishOfConverse(typeof data.stopReason === 'string' ? data.stopReason : '');
        break;
      case 'metadata':
        this.#usage = usageOfConverse(data.usage);
        if (this.#finish) this.#end();
        break;
      default:
        // messageStart and events newer than polygate carry nothing the IR needs.
        break;
    }
    return this.#flush();
  }

  end(): StreamEvent[] {
    if (this.#over) return [];
    if (this.#finish) this.#end();
    else {
      this.#over = true;
      this.#out.push({
        type: 'error',
        error: new GatewayError('upstream', 'bedrock upstream stream ended early (no messageStop)'),
      });
    }
    return this.#flush();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#out.push({ type: 'start', id: '', model: this.#model });
  }

  #onStart(data: Json): void {
    const start = isObject(data.start) ? data.start : {};
    const i = typeof data.contentBlockIndex === 'number' ? data.contentBlockIndex : 0;
    if (!isObject(start.toolUse)) return;
    const index = this.#next++;
    this.#blocks.set(i, { index, kind: 'tool' });
    const id = typeof start.toolUse.toolUseId === 'string' ? start.toolUse.toolUseId : `tooluse_${i}`;
    const name = typeof start.toolUse.name === 'string' ? start.toolUse.name : '';
    this.#out.push({ type: 'tool-input-start', index, id, name });
  }

  #onDelta(data: Json): void {
    const i = typeof data.contentBlockIndex === 'number' ? data.contentBlockIndex : 0;
    const delta = isObject(data.delta) ? data.delta : {};
    if (typeof delta.text === 'string') {
      const b = this.#open(i, 'text');
      if (delta.text !== '') this.#out.push({ type: 'text-delta', index: b.index, text: delta.text });
    } else if (isObject(delta.toolUse)) {
      const b = this.#blocks.get(i);
      if (b?.kind === 'tool' && typeof delta.toolUse.input === 'string' && delta.toolUse.input !== '')
        this.#out.push({ type: 'tool-input-delta', index: b.index, json: delta.toolUse.input });
    } else if (isObject(delta.reasoningContent)) {
      const r = delta.reasoningContent;
      // Redacted reasoning arrives whole in one delta, which opens its block.
      const b = this.#open(i, 'reasoning', typeof r.redactedContent === 'string' ? r.redactedContent : undefined);
      if (typeof r.text === 'string' && r.text !== '')
        this.#out.push({ type: 'reasoning-delta', index: b.index, text: r.text });
      if (typeof r.signature === 'string' && r.signature !== '')
        this.#out.push({ type: 'reasoning-signature', index: b.index, signature: r.signature });
    }
  }

  #open(i: number, kind: 'text' | 'reasoning', redacted?: string): Block {
    const known = this.#blocks.get(i);
    if (known) return known;
    const b: Block = { index: this.#next++, kind };
    this.#blocks.set(i, b);
    // Claude's signatures hold on every platform that serves it (converse-reasoning.ts): origin Anthropic's.
    this.#out.push(
      kind === 'text'
        ? { type: 'text-start', index: b.index }
        : { type: 'reasoning-start', index: b.index, origin: 'anthropic-messages', ...(redacted ? { redacted } : {}) },
    );
    return b;
  }

  #close(i: number): void {
    const b = this.#blocks.get(i);
    if (!b) return;
    this.#blocks.delete(i);
    if (b.kind === 'text') this.#out.push({ type: 'text-end', index: b.index });
    else if (b.kind === 'tool') this.#out.push({ type: 'tool-input-end', index: b.index });
    else this.#out.push({ type: 'reasoning-end', index: b.index });
  }

  #end(): void {
    this.#over = true;
    this.#out.push({
      type: 'finish',
      finish: this.#finish ?? { reason: 'other', raw: '' },
      usage: this.#usage ?? emptyUsage(),
    });
  }

  #flush(): StreamEvent[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }
}
