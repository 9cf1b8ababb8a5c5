import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { TextPart } from '../../ir/chat-request.ts';
import type { ResponseRepository } from './response-repository.ts';

type Item = Record<string, unknown>;
const isObject = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);
const newId = (prefix: string): string => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/**
 * Replaces each `item_reference` in `input` with the stored item it names, inside the caller's
 * workspace, before the request is decoded: output items are valid input items, so the decoder
 * sees an ordinary conversation. An id of another workspace is "not found", like an unknown one.
 */
export async function resolveItemReferences(
  body: unknown,
  repo: ResponseRepository,
  workspace: string,
  isReference: (item: unknown) => boolean,
): Promise<unknown> {
  if (!isObject(body) || !Array.isArray(body.input) || !body.input.some((i) => isObject(i) && isReference(i)))
    return body;
  const input = await Promise.all(
    body.input.map(async (item: unknown, i: number) => {
      if (!isObject(item) || !isReference(item)) return item;
      const stored = typeof item.id === 'string' ? await repo.item(item.id, workspace) : undefined;
      if (!stored)
        throw new GatewayError('not-found', `Item with id '${String(item.id)}' not found.`, {
          param: `input[${i}].id`,
        });
      return stored;
    }),
  );
  return { ...body, input };
}

/**
 * The request's input as the list `GET /v1/responses/{id}/input_items` returns: a string becomes
 * one user message, message content strings become typed parts, and every item gets an id.
 */
export function normalizeInputItems(input: unknown): Item[] {
  const items: unknown[] =
    typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : Array.isArray(input) ? input : [];
  return items.filter(isObject).map((raw) => {
    const item: Item = { ...raw };
    if (item.type === undefined && item.role !== undefined) item.type = 'message';
    if (item.type === 'message' && typeof item.content === 'string') {
      item.content = [
        {
          type: item.role === 'assistant' ? 'output_text' : 'input_text',
          text: item.content,
          ...(item.role === 'assistant' ? { annotations: [] } : {}),
        },
      ];
    }
    if (typeof item.id !== 'string')
      item.id = newId(item.type === 'message' ? 'msg' : item.type === 'function_call_output' ? 'fco' : 'item');
    return item;
  });
}

/**
 * The text of the developer/system messages that open a first turn's input, in order, read from
 * the input as sent: the same items normalizeInputItems would give, without its copies and ids.
 */
export function leadingInstructions(input: unknown): TextPart[] {
  const parts: TextPart[] = [];
  if (!Array.isArray(input)) return parts;
  for (const item of input) {
    if (!isObject(item)) continue;
    // An item without `type` but with a `role` is a message (input-items.ts normalizeInputItems).
    const type = item.type === undefined && item.role !== undefined ? 'message' : item.type;
    if (type !== 'message' || (item.role !== 'developer' && item.role !== 'system')) break;
    if (typeof item.content === 'string') {
      if (item.content !== '') parts.push({ type: 'text', text: item.content });
      continue;
    }
    const content = Array.isArray(item.content) ? item.content : [];
    for (const c of content) {
      const text = (c as { text?: unknown } | null)?.text;
      if (typeof text === 'string' && text !== '') parts.push({ type: 'text', text });
    }
  }
  return parts;
}
