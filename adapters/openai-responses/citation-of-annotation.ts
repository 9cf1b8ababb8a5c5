// A Responses `output_text` annotation as an IR citation, read the same way from a client's
// replayed assistant message (decode-input-content.ts) and from an upstream's response object
// (decode-response-object.ts).
import type { Citation } from '../../src/ir/chat-request.ts';
import type { Json } from '../shared/narrow.ts';

/**
 * url_citation and file_citation map onto IR citations; file_path and container_file_citation
 * point at files in OpenAI containers, which no other format can cite, so they give undefined.
 */
export function citationOfAnnotation(a: Json): Citation | undefined {
  if (a.type === 'url_citation' && typeof a.url === 'string') {
    const c: Citation = { kind: 'url', url: a.url };
    if (typeof a.title === 'string') c.title = a.title;
    if (typeof a.start_index === 'number') c.start = a.start_index;
    if (typeof a.end_index === 'number') c.end = a.end_index;
    return c;
  }
  if (a.type === 'file_citation' && typeof a.file_id === 'string')
    return typeof a.index === 'number'
      ? { kind: 'file', fileId: a.file_id, index: a.index }
      : { kind: 'file', fileId: a.file_id };
  return undefined;
}
