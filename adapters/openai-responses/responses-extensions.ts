// The keys of this format's `ChatRequest.extensions` namespace, by Responses wire name
// (https://platform.openai.com/docs/api-reference/responses/create). Stored state
// (`previous_response_id`, `item_reference`) is resolved by the pipeline, not here: the decoder
// only records what the client asked for, in a documented shape.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { ownExtensions } from '../shared/format-extensions.ts';
import { isObject } from '../shared/narrow.ts';
import { serviceTierWord } from '../shared/service-tier.ts';

/**
 * Where an `item_reference` input item stood. The referenced item belongs before
 * `messages[messageIndex].parts[partIndex]`; `partIndex` may equal that message's length (append)
 * and `messageIndex` may equal `messages.length` (a new message at the end). `inputIndex` is the
 * item's position in the client's `input` array.
 */
export type ItemReferenceSlot = { id: string; inputIndex: number; messageIndex: number; partIndex: number };

export const ext = {
  previousResponseId: 'previous_response_id',
  /** boolean, default true: whether the client wants the response stored. */
  store: 'store',
  /** string[] of `include` values. */
  include: 'include',
  /** 'auto' | 'disabled'. */
  truncation: 'truncation',
  /** A tier word the IR has no ServiceTier for (newer than polygate). */
  serviceTier: 'service_tier',
  /** string[]: ids of `item_reference` items, in input order. */
  itemReferences: 'item_references',
  /** ItemReferenceSlot[]: where each reference stood (same order as item_references). */
  itemReferenceSlots: 'item_reference_slots',
  /** The `instructions` string as sent, so the response object can echo it exactly. */
  instructions: 'instructions',
  /** A `text.verbosity` word the IR has no Verbosity for. */
  verbosity: 'verbosity',
} as const;

/** This format's own options (adapters/shared/format-extensions.ts). */
export const responsesOptions = (req: Pick<ChatRequest, 'extensions'>): Readonly<Record<string, unknown>> =>
  ownExtensions(req, 'openai-responses');

const strOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A typed view of the extensions the response object echoes. */
export type ResponsesEcho = {
  previousResponseId: string | null;
  store: boolean;
  include: string[];
  truncation: string;
  serviceTier: string | undefined;
  instructions: string | null;
  verbosity: string | undefined;
};

export function readEcho(req: ChatRequest): ResponsesEcho {
  const e = responsesOptions(req);
  const include = Array.isArray(e[ext.include])
    ? (e[ext.include] as unknown[]).filter((v): v is string => typeof v === 'string')
    : [];
  return {
    previousResponseId: strOf(e[ext.previousResponseId]) ?? null,
    store: typeof e[ext.store] === 'boolean' ? (e[ext.store] as boolean) : true,
    include,
    truncation: strOf(e[ext.truncation]) ?? 'disabled',
    serviceTier:
      strOf(e[ext.serviceTier]) ??
      (req.serviceTier !== undefined ? serviceTierWord(req.serviceTier, 'openai-responses') : undefined),
    instructions: strOf(e[ext.instructions]) ?? null,
    verbosity: req.verbosity ?? strOf(e[ext.verbosity]),
  };
}

export function readItemReferenceSlots(req: ChatRequest): ItemReferenceSlot[] {
  const v = responsesOptions(req)[ext.itemReferenceSlots];
  if (!Array.isArray(v)) return [];
  return v.filter(
    (s): s is ItemReferenceSlot =>
      isObject(s) &&
      typeof s.id === 'string' &&
      typeof s.inputIndex === 'number' &&
      typeof s.messageIndex === 'number' &&
      typeof s.partIndex === 'number',
  );
}
