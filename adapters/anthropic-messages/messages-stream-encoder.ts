// IR stream -> Messages SSE events, in the order of
// https://docs.anthropic.com/en/docs/build-with-claude/streaming : message_start, per content
// block content_block_start / _delta / _stop, message_delta (stop reason, usage), message_stop.
// IR part indexes are remapped to contiguous block indexes in the order blocks open, which is
// how the SDKs build `content` (they append on content_block_start).
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { ReasoningOrigin } from '../../src/ir/wire-format.ts';
import type { Usage } from '../../src/ir/chat-result.ts';
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';
import type { ClientStreamEncoder, SseFrame } from '../shared/chat-adapter.ts';
import { Batch } from '../shared/batch.ts';
import { failedFinish } from '../shared/failed-finish.ts';
import type { Json } from '../shared/narrow.ts';
import { messageId } from './encode-messages-result.ts';
import { wireCitationOf } from './messages-citations.ts';
import { serverToolBlockOf } from './messages-server-tools.ts';
import { errorBodyOf } from './messages-error.ts';
import { wireUsageOf } from './messages-usage.ts';
import { stopReasonOf } from './stop-reason-map.ts';

type BlockKind =
  | 'text'
  | 'thinking'
  | 'redacted_thinking'
  | 'tool_use'
  | 'server_tool_use'
  | 'web_search_tool_result'
  | 'web_fetch_tool_result';
/**
 * `foreign`: reasoning another provider produced; its signature is not Anthropic's to show.
 * `delta`: the text of its string deltas before the JSON string, made at its first delta.
 */
type Block = { wire: number; kind: BlockKind; open: boolean; foreign?: boolean; delta?: string };

/** Only Anthropic's own reasoning carries a signature or redacted data a Messages client can send back. */
const isAnthropic = (origin: ReasoningOrigin): boolean => origin === 'anthropic-messages';

const frame = (event: string, body: Json): SseFrame => ({ event, data: JSON.stringify({ type: event, ...body }) });
/**
 * Frames of fixed text, made once as `frame` would make them (issue #28: no objects and stringify
 * per stream): the stream's end; a text block's start and any block's end, for the first indexes.
 */
const messageStop = JSON.stringify({ type: 'message_stop' });
const blockStops = Array.from({ length: 16 }, (_, index) => JSON.stringify({ type: 'content_block_stop', index }));
const textStarts = Array.from({ length: 16 }, (_, index) =>
  JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
);

/** The string deltas, one per upstream chunk: built as text, the bytes `frame` would make (issue #28). */
type StringDelta = 'text_delta' | 'thinking_delta' | 'signature_delta' | 'input_json_delta';
const fieldOf: Record<StringDelta, string> = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  signature_delta: 'signature',
  input_json_delta: 'partial_json',
};
const deltaFrame = (wire: number, type: StringDelta, value: string): SseFrame => ({
  event: 'content_block_delta',
  data: `${deltaHead(wire, type)}${JSON.stringify(value)}}}`,
});
/** Joined, not concatenated: one flat string, where a template makes a string of many pieces per use. */
const joinDeltaHead = (wire: number, type: StringDelta): string =>
  ['{"type":"content_block_delta","index":', wire, ',"delta":{"type":"', type, '","', fieldOf[type], '":'].join('');
/** The heads of the first block indexes, made once for every stream (issue #28), as the fixed frames are. */
const deltaHeads: Record<StringDelta, string[]> = {
  text_delta: [],
  thinking_delta: [],
  signature_delta: [],
  input_json_delta: [],
};
const deltaHead = (wire: number, type: StringDelta): string =>
  wire < 16 ? (deltaHeads[type][wire] ??= joinDeltaHead(wire, type)) : joinDeltaHead(wire, type);

const usageKeys: ReadonlyArray<keyof Usage> = [
  'inputTokens',
  'outputTokens',
  'reasoningTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'webSearchRequests',
  'webFetchRequests',
];

/** Later counters win unless they are zero where an earlier event had a real count. */
function mergeUsage(a: Partial<Usage>, b: Partial<Usage>): Partial<Usage> {
  const out: Partial<Usage> = { ...a };
  // Indexed: run a few times a stream, not optimized, a `for...of` makes an iterator result per key.
  for (let i = 0; i < usageKeys.length; i++) {
    const k = usageKeys[i];
    const v = b[k];
    if (v !== undefined && (v !== 0 || out[k] === undefined)) out[k] = v;
  }
  return out;
}

export class MessagesStreamEncoder implements ClientStreamEncoder {
  readonly #model: string;
  readonly #blocks = new Map<number, Block>();
  #next = 0;
  #started = false;
  #done = false;
  #usage: Partial<Usage> = {};
  /** What a push hands back, one array for the stream (ClientStreamEncoder: valid until the next push). */
  readonly #frames = new Batch<SseFrame>();

  constructor(request: ChatRequest) {
    this.#model = request.model;
  }

  push(e: StreamEvent): SseFrame[] {
    const out = this.#frames;
    if (!this.#done) {
      const delta = this.#openDelta(e);
      if (delta !== undefined) return out.only(delta);
    }
    // Frames of a push that threw half-way are not sent with this one.
    out.clear();
    if (this.#done) return out.take();
    switch (e.type) {
      case 'start':
        if (e.usage) this.#usage = mergeUsage(this.#usage, e.usage);
        this.#start(out, e.id);
        break;
      case 'text-start':
        this.#open(out, e.index, 'text');
        break;
      case 'text-delta':
      case 'refusal-delta':
        // A refusal is shown as text: Messages has no refusal block (stop_reason says `refusal`).
        if (this.#open(out, e.index, 'text').kind === 'text') this.#stringDelta(out, e.index, 'text_delta', e.text);
        break;
      case 'reasoning-start':
        if (e.redacted !== undefined && isAnthropic(e.origin))
          this.#open(out, e.index, 'redacted_thinking', { data: e.redacted });
        else this.#open(out, e.index, 'thinking').foreign = !isAnthropic(e.origin);
        break;
      case 'reasoning-delta':
        if (this.#open(out, e.index, 'thinking').kind === 'thinking')
          this.#stringDelta(out, e.index, 'thinking_delta', e.text);
        break;
      case 'reasoning-signature': {
        // Another provider's token must not come back later looking like an Anthropic signature
        // (the block keeps its empty one, as encodeMessagesResult shows it).
        const block = this.#open(out, e.index, 'thinking');
        if (block.kind === 'thinking' && !block.foreign)
          this.#stringDelta(out, e.index, 'signature_delta', e.signature);
        break;
      }
      case 'tool-input-start':
        this.#open(out, e.index, 'tool_use', { id: e.id, name: e.name, input: {} });
        break;
      case 'tool-input-delta':
        // Without its start the block has no id or name, so a stray delta cannot be shown.
        if (this.#blocks.get(e.index)?.kind === 'tool_use') this.#stringDelta(out, e.index, 'input_json_delta', e.json);
        break;
      case 'text-citation':
        if (this.#blocks.get(e.index)?.kind === 'text')
          this.#delta(out, e.index, { type: 'citations_delta', citation: wireCitationOf(e.citation) });
        break;
      case 'hosted-call': {
        // As Anthropic streams it: the block opens with an empty input, which then arrives whole.
        const { id, tool, input } = e.part;
        this.#open(out, e.index, 'server_tool_use', { id, name: tool, input: {} });
        this.#delta(out, e.index, { type: 'input_json_delta', partial_json: JSON.stringify(input) });
        this.#close(out, e.index);
        break;
      }
      case 'hosted-result': {
        const { type, ...fields } = serverToolBlockOf(e.part);
        this.#open(out, e.index, type as BlockKind, fields);
        this.#close(out, e.index);
        break;
      }
      case 'text-end':
      case 'reasoning-end':
      case 'tool-input-end':
        this.#close(out, e.index);
        break;
      case 'usage':
        this.#usage = mergeUsage(this.#usage, e.usage);
        break;
      case 'finish':
        this.#finish(out, e);
        break;
      case 'error':
        this.#error(out, e.error);
        break;
      default:
        return assertNever(e, 'stream event');
    }
    return out.take();
  }

  /**
   * A string delta for a block already open, the event nearly every upstream chunk makes: its one
   * frame, without the general path below (issue #28). Anything else: undefined, and
   * `push` takes the general path (which gives the same frame for these).
   */
  #openDelta(e: StreamEvent): SseFrame | undefined {
    let kind: BlockKind;
    let type: StringDelta;
    let value: string;
    switch (e.type) {
      case 'text-delta':
      case 'refusal-delta':
        kind = 'text';
        type = 'text_delta';
        value = e.text;
        break;
      case 'reasoning-delta':
        kind = 'thinking';
        type = 'thinking_delta';
        value = e.text;
        break;
      case 'tool-input-delta':
        kind = 'tool_use';
        type = 'input_json_delta';
        value = e.json;
        break;
      default:
        return undefined;
    }
    const block = this.#blocks.get(e.index);
    if (!block?.open || block.kind !== kind) return undefined;
    // The same head for every delta of the block: built once, not per chunk.
    block.delta ??= deltaHead(block.wire, type);
    return { event: 'content_block_delta', data: `${block.delta}${JSON.stringify(value)}}}` };
  }

  /** Lazily, so a stream whose upstream never sent 'start' still opens with message_start. */
  #start(out: Batch<SseFrame>, id?: string): void {
    if (this.#started) return;
    this.#started = true;
    const message = {
      id: messageId(id ?? crypto.randomUUID().replace(/-/g, '')),
      type: 'message',
      role: 'assistant',
      model: this.#model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: wireUsageOf(this.#usage),
    };
    out.push(frame('message_start', { message }));
  }

  /** Opens the block for an IR index unless it exists; returns the block (whatever its kind). */
  #open(out: Batch<SseFrame>, index: number, kind: BlockKind, fields?: Json): Block {
    const existing = this.#blocks.get(index);
    if (existing) return existing;
    this.#start(out);
    const block: Block = { wire: this.#next++, kind, open: true };
    this.#blocks.set(index, block);
    const textStart = kind === 'text' && fields === undefined ? textStarts[block.wire] : undefined;
    if (textStart !== undefined) {
      out.push({ event: 'content_block_start', data: textStart });
      return block;
    }
    const initial: Json = kind === 'text' ? { text: '' } : kind === 'thinking' ? { thinking: '', signature: '' } : {};
    out.push(frame('content_block_start', { index: block.wire, content_block: { type: kind, ...initial, ...fields } }));
    return block;
  }

  #delta(out: Batch<SseFrame>, index: number, delta: Json): void {
    const block = this.#blocks.get(index);
    if (block?.open) out.push(frame('content_block_delta', { index: block.wire, delta }));
  }

  #stringDelta(out: Batch<SseFrame>, index: number, type: StringDelta, value: string): void {
    const block = this.#blocks.get(index);
    if (block?.open) out.push(deltaFrame(block.wire, type, value));
  }

  #close(out: Batch<SseFrame>, index: number): void {
    const block = this.#blocks.get(index);
    if (!block?.open) return;
    block.open = false;
    const stop = blockStops[block.wire];
    out.push(
      stop === undefined
        ? frame('content_block_stop', { index: block.wire })
        : { event: 'content_block_stop', data: stop },
    );
  }

  #finish(out: Batch<SseFrame>, e: Extract<StreamEvent, { type: 'finish' }>): void {
    this.#start(out);
    const failed = failedFinish(e.finish);
    if (failed) return this.#error(out, failed);
    // In wire order: blocks are numbered as they open, which is the map's order (no copy and sort).
    for (const index of this.#blocks.keys()) this.#close(out, index);
    this.#usage = mergeUsage(this.#usage, e.usage);
    out.push(
      frame('message_delta', {
        delta: { stop_reason: stopReasonOf(e.finish), stop_sequence: e.finish.stopSequence ?? null },
        usage: wireUsageOf(this.#usage),
      }),
    );
    out.push({ event: 'message_stop', data: messageStop });
    this.#done = true;
  }

  /** An error after the first byte travels inside the stream, in the family's error shape. */
  #error(out: Batch<SseFrame>, err: GatewayError): void {
    out.push({ event: 'error', data: JSON.stringify(errorBodyOf(err)) });
    this.#done = true;
  }
}
