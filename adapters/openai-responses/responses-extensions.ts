// The `ChatRequest.extensions` keys this adapter writes and reads, by Responses wire name
// (https://platform.openai.com/docs/api-reference/responses/create). Stored state
// (`previous_response_id`, `item_reference`) is resolved by the pipeline, not here: the decoder
// only records what the client asked for, in a documented shape.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { isObject } from '../shared/narrow.ts';

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
  serviceTier: 'service_tier',
  /** string[]: ids of `item_reference` items, in input order. */
  itemReferences: 'item_references',
  /** ItemReferenceSlot[]: where each reference stood (same order as item_references). */
  itemReferenceSlots: 'item_reference_slots',
  /** The `instructions` string as sent, so the response object can echo it exactly. */
  instructions: 'instructions',
  /** `text.verbosity`. */
  verbosity: 'verbosity',
  /** The reasoning effort word when it is outside the IR scale ('none'). */
  reasoningEffort: 'reasoning_effort',
} as const;

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
  reasoningEffort: string | undefined;
};

export function readEcho(req: ChatRequest): ResponsesEcho {
  const e = req.extensions;
  const include = Array.isArray(e[ext.include]) ? (e[ext.include] as unknown[]).filter((v): v is string => typeof v === 'string') : [];
  return {
    previousResponseId: strOf(e[ext.previousResponseId]) ?? null,
    store: typeof e[ext.store] === 'boolean' ? (e[ext.store] as boolean) : true,
    include,
    truncation: strOf(e[ext.truncation]) ?? 'disabled',
    serviceTier: strOf(e[ext.serviceTier]),
    instructions: strOf(e[ext.instructions]) ?? null,
    verbosity: strOf(e[ext.verbosity]),
    reasoningEffort: strOf(e[ext.reasoningEffort]),
  };
}

export function readItemReferenceSlots(req: ChatRequest): ItemReferenceSlot[] {
  const v = req.extensions[ext.itemReferenceSlots];
  if (!Array.isArray(v)) return [];
  return v.filter(
    (s): s is ItemReferenceSlot =>
      isObject(s) && typeof s.id === 'string' && typeof s.inputIndex === 'number' && typeof s.messageIndex === 'number' && typeof s.partIndex === 'number',
  );
}
