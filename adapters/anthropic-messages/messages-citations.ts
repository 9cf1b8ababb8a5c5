// Text-block citations, https://docs.anthropic.com/en/docs/build-with-claude/citations
// The IR keeps the parts every format shares (document index, span, url, title); Anthropic's
// page / content-block spans land in start/end, and opaque fields (encrypted_index) are not kept.
import type { Citation } from '../../src/ir/chat-request.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { isObject, type Json } from '../shared/narrow.ts';

const optString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const optNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Wire -> IR; citation types polygate does not know are skipped (they only annotate text). */
export function citationOfWire(c: unknown): Citation | undefined {
  if (!isObject(c)) return undefined;
  const title = optString(c.document_title) ?? optString(c.title);
  const citedText = optString(c.cited_text);
  const doc = (start: unknown, end: unknown): Citation => ({
    kind: 'document',
    documentIndex: optNumber(c.document_index) ?? optNumber(c.search_result_index) ?? 0,
    ...(title !== undefined ? { title } : {}),
    ...(citedText !== undefined ? { citedText } : {}),
    ...(optNumber(start) !== undefined ? { start: optNumber(start) } : {}),
    ...(optNumber(end) !== undefined ? { end: optNumber(end) } : {}),
  });
  switch (c.type) {
    case 'char_location':
      return doc(c.start_char_index, c.end_char_index);
    case 'page_location':
      return doc(c.start_page_number, c.end_page_number);
    case 'content_block_location':
    case 'search_result_location':
      return doc(c.start_block_index, c.end_block_index);
    case 'web_search_result_location': {
      const url = optString(c.url);
      return url === undefined ? undefined : { kind: 'url', url, ...(title !== undefined ? { title } : {}) };
    }
    default:
      return undefined;
  }
}

export function citationsOfWire(v: unknown): Citation[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out = v.map(citationOfWire).filter((c): c is Citation => c !== undefined);
  return out.length > 0 ? out : undefined;
}

type CharSpan = { citedText?: string; title?: string; start?: number; end?: number; fileId?: string };

/** A `char_location` citation, of a document or of a file; what the IR does not keep is empty. */
const charLocation = (documentIndex: number, c: CharSpan): Json => ({
  type: 'char_location',
  cited_text: c.citedText ?? '',
  document_index: documentIndex,
  document_title: c.title ?? null,
  ...(c.fileId !== undefined ? { file_id: c.fileId } : {}),
  start_char_index: c.start ?? 0,
  end_char_index: c.end ?? 0,
});

/** IR -> client response; fields the IR does not keep are filled with their empty values. */
export function wireCitationOf(c: Citation): Json {
  switch (c.kind) {
    case 'document':
      return charLocation(c.documentIndex, c);
    case 'file':
      // The IR keeps no span or quote of a file citation.
      return charLocation(c.index ?? 0, { fileId: c.fileId });
    case 'url':
      return {
        type: 'web_search_result_location',
        cited_text: c.citedText ?? '',
        url: c.url,
        title: c.title ?? null,
        encrypted_index: '',
      };
    default:
      return assertNever(c, 'citation');
  }
}
