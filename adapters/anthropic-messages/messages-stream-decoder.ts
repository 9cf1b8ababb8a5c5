// An upstream's Messages SSE stream -> IR stream events, one method per wire event of
// https://docs.anthropic.com/en/docs/build-with-claude/streaming . Tool-input pieces are passed
// on exactly as they came, so concatenating them rebuilds the upstream's arguments byte for byte.
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import type { UpstreamStreamDecoder } from '../shared/chat-adapter.ts';
import { int, isObject, obj, str, type Json } from '../shared/narrow.ts';
import { notJson, parseFrameJson } from '../shared/frame-json.ts';
import { TextTemplate } from '../shared/text-template.ts';
import { decodeStreamError } from './messages-error.ts';
import { completeUsage, usageOfWire } from './messages-usage.ts';
import { finishOfStopReason } from './stop-reason-map.ts';

type Kind = 'text' | 'reasoning' | 'tool';
type Block = { index: number; kind: Kind; open: boolean };

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** One per wire event, shared by every stream: no closures per decoder (issue #28). */
const handlers = new Map<string, (dec: MessagesStreamDecoder, d: Json) => StreamEvent[]>([
  ['message_start', (dec, d) => dec.messageStart(d)],
  ['content_block_start', (dec, d) => dec.contentBlockStart(d)],
  ['content_block_delta', (dec, d) => dec.contentBlockDelta(d)],
  ['content_block_stop', (dec, d) => dec.contentBlockStop(d)],
  ['message_delta', (dec, d) => dec.messageDelta(d)],
  ['message_stop', (dec) => dec.messageStop()],
  ['ping', () => []],
  ['error', (dec, d) => dec.error(d)],
]);

/** The text a parsed `content_block_delta` gives the decoder as a text delta's (`delta.text`). */
const deltaText = (d: unknown): unknown => (isObject(d) && isObject(d.delta) ? d.delta.text : undefined);

export class MessagesStreamDecoder implements UpstreamStreamDecoder {
  /** Wire block index -> IR part; server-tool blocks are not in the map (no IR part for them). */
  readonly #blocks = new Map<number, Block>();
  #next = 0;
  /** Usage counters as the wire reported them; later events overwrite (they are cumulative). */
  #usage: Json = {};
  #stopReason: string | null = null;
  #stopSequence: string | null = null;
  #done = false;
  /**
   * Text deltas read without parsing them whole (adapters/shared/text-template.ts), with the event
   * name and block index of the frame the template is made of: a match is that frame with another
   * text, handled as it would be (the block's state is checked each time).
   */
  readonly #text = new TextTemplate('text', deltaText);
  #textEvent: string | undefined;
  #textIndex: unknown;
  /** `#textDelta`'s batch, one for the stream. */
  readonly #one: StreamEvent[] = [];

  push(frame: { event?: string; data: string }): StreamEvent[] {
    if (this.#done) return [];
    if (frame.event === this.#textEvent) {
      const text = this.#text.match(frame.data);
      if (text !== undefined) return this.#textDelta(this.#textIndex, text);
    }
    const data = parseFrameJson(frame.data);
    if (data === notJson) return this.#fail('anthropic upstream sent a stream event that is not JSON');
    const name = frame.event ?? (isObject(data) && typeof data.type === 'string' ? data.type : '');
    const handler = handlers.get(name);
    // Unknown events are skipped: the API may add event types (versioning policy).
    if (!handler || !isObject(data)) return [];
    try {
      const out = handler(this, data);
      if (name === 'content_block_delta') this.#learnText(frame, data);
      return out;
    } catch (e) {
      if (e instanceof GatewayError)
        return this.#fail(`anthropic upstream sent a malformed '${name}' event (${e.message})`);
      throw e;
    }
  }

  end(): StreamEvent[] {
    if (this.#done) return [];
    return this.#fail('anthropic upstream stream ended early');
  }

  /** A text delta, read whole: the decoder read its index, delta type and text, nothing else. */
  #learnText(frame: { event?: string; data: string }, d: Json): void {
    const delta = d.delta;
    if (!isObject(delta) || delta.type !== 'text_delta' || typeof delta.text !== 'string') return;
    if (!this.#text.learn(frame.data, delta.text)) return;
    this.#textEvent = frame.event;
    this.#textIndex = d.index;
  }

  messageStart(d: Json): StreamEvent[] {
    const m = obj(d.message, 'message');
    this.#mergeUsage(m.usage);
    return [
      {
        type: 'start',
        id: str(m.id, 'message.id'),
        model: typeof m.model === 'string' ? m.model : '',
        usage: usageOfWire(this.#usage),
      },
    ];
  }

  contentBlockStart(d: Json): StreamEvent[] {
    const wire = int(d.index, 'index');
    const b = obj(d.content_block, 'content_block');
    const open = (kind: Kind): number => {
      const index = this.#next++;
      this.#blocks.set(wire, { index, kind, open: true });
      return index;
    };
    switch (b.type) {
      case 'text': {
        const index = open('text');
        return [
          { type: 'text-start', index },
          ...(nonEmpty(b.text) ? [{ type: 'text-delta' as const, index, text: b.text }] : []),
        ];
      }
      case 'thinking': {
        const index = open('reasoning');
        // The origin tells encoders this signature is Anthropic's (valid only when sent back to it).
        const out: StreamEvent[] = [{ type: 'reasoning-start', index, origin: 'anthropic-messages' }];
        if (nonEmpty(b.thinking)) out.push({ type: 'reasoning-delta', index, text: b.thinking });
        if (nonEmpty(b.signature)) out.push({ type: 'reasoning-signature', index, signature: b.signature });
        return out;
      }
      case 'redacted_thinking':
        return [
          {
            type: 'reasoning-start',
            index: open('reasoning'),
            redacted: str(b.data, 'content_block.data'),
            origin: 'anthropic-messages',
          },
        ];
      case 'tool_use': {
        const id = str(b.id, 'content_block.id');
        const name = str(b.name, 'content_block.name');
        const index = open('tool');
        // The input starts as {} and arrives through input_json_delta; a filled one is passed on.
        const initial =
          isObject(b.input) && Object.keys(b.input).length > 0
            ? [{ type: 'tool-input-delta' as const, index, json: JSON.stringify(b.input) }]
            : [];
        return [{ type: 'tool-input-start', index, id, name }, ...initial];
      }
      default:
        return [];
    }
  }

  contentBlockDelta(d: Json): StreamEvent[] {
    const block = this.#blocks.get(int(d.index, 'index'));
    if (!block?.open) return [];
    const delta = obj(d.delta, 'delta');
    const { index } = block;
    switch (delta.type) {
      case 'text_delta':
        return block.kind === 'text' ? [{ type: 'text-delta', index, text: str(delta.text, 'delta.text') }] : [];
      case 'input_json_delta':
        return block.kind === 'tool'
          ? [{ type: 'tool-input-delta', index, json: str(delta.partial_json, 'delta.partial_json') }]
          : [];
      case 'thinking_delta':
        return block.kind === 'reasoning'
          ? [{ type: 'reasoning-delta', index, text: str(delta.thinking, 'delta.thinking') }]
          : [];
      case 'signature_delta':
        return block.kind === 'reasoning'
          ? [{ type: 'reasoning-signature', index, signature: str(delta.signature, 'delta.signature') }]
          : [];
      // citations_delta: the IR stream has no citation event, so citations reach only non-streamed results.
      default:
        return [];
    }
  }

  /**
   * A text delta read through the template: what `contentBlockDelta` gives for it, without the
   * wire objects, in the decoder's one-event batch (issue #28: no array per chunk; the batch is
   * the decoder's own until its next push, as UpstreamStreamDecoder allows).
   */
  #textDelta(wireIndex: unknown, text: string): StreamEvent[] {
    const block = this.#blocks.get(int(wireIndex, 'index'));
    if (!block?.open || block.kind !== 'text') return [];
    this.#one[0] = { type: 'text-delta', index: block.index, text };
    return this.#one;
  }

  contentBlockStop(d: Json): StreamEvent[] {
    const block = this.#blocks.get(int(d.index, 'index'));
    return block ? this.#close(block) : [];
  }

  messageDelta(d: Json): StreamEvent[] {
    const delta = isObject(d.delta) ? d.delta : {};
    if (typeof delta.stop_reason === 'string') this.#stopReason = delta.stop_reason;
    if (typeof delta.stop_sequence === 'string') this.#stopSequence = delta.stop_sequence;
    this.#mergeUsage(d.usage);
    return [];
  }

  messageStop(): StreamEvent[] {
    // Blocks left open by the upstream are closed so every IR part has its end.
    const out = [...this.#blocks.values()].flatMap((b) => this.#close(b));
    this.#done = true;
    out.push({
      type: 'finish',
      finish: finishOfStopReason(this.#stopReason, this.#stopSequence),
      usage: completeUsage(usageOfWire(this.#usage)),
    });
    return out;
  }

  error(d: Json): StreamEvent[] {
    this.#done = true;
    return [{ type: 'error', error: decodeStreamError(d) }];
  }

  #close(block: Block): StreamEvent[] {
    if (!block.open) return [];
    block.open = false;
    const type = block.kind === 'text' ? 'text-end' : block.kind === 'reasoning' ? 'reasoning-end' : 'tool-input-end';
    return [{ type, index: block.index }];
  }

  #mergeUsage(u: unknown): void {
    if (!isObject(u)) return;
    for (const [k, v] of Object.entries(u)) if (v !== null && v !== undefined) this.#usage[k] = v;
  }

  #fail(message: string): StreamEvent[] {
    this.#done = true;
    return [{ type: 'error', error: new GatewayError('upstream', message) }];
  }
}
