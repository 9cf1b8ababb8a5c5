// Web search and fetch as the Responses API shows them: `web_search_call` items with an `action`
// (`search` with its query and sources, or `open_page` with the URL)
// (https://platform.openai.com/docs/guides/tools-web-search). polygate's hosted-tool loop
// (docs/hosted-tools.md) answers with them, and a client that sends them back (Codex replays its
// turns) gives the upstream the call and its sources as text.
import type { HostedCallPart, HostedResultPart, Part } from '../../src/ir/chat-request.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import type { WebSearchCallItem } from './responses-wire-types.ts';

export function webSearchCallOf(id: string, call: HostedCallPart): WebSearchCallItem {
  const q = call.input;
  const action =
    call.tool === 'web_fetch'
      ? { type: 'open_page' as const, url: typeof q.url === 'string' ? q.url : '' }
      : { type: 'search' as const, query: typeof q.query === 'string' ? q.query : '', sources: [] };
  return { id, type: 'web_search_call', status: 'in_progress', action };
}

/** The item once its result is in: the sources a search found; `failed` when the tool failed. */
export function completeWebSearchCall(item: WebSearchCallItem, r: HostedResultPart): void {
  item.status = r.error !== undefined ? 'failed' : 'completed';
  if (item.action.type === 'search') item.action.sources = r.sources.map((s) => ({ type: 'url', url: s.url }));
}

/** A `web_search_call` input item as parts: the call, and what it found as far as the item says. */
export function partsOfWebSearchCall(item: Json, index: number): Part[] {
  const id = typeof item.id === 'string' ? item.id : `ws_input_${index}`;
  const action = isObject(item.action) ? item.action : {};
  const failed = item.status === 'failed';
  if (action.type === 'open_page' && typeof action.url === 'string') {
    return [
      { type: 'hosted-call', id, tool: 'web_fetch', input: { url: action.url } },
      {
        type: 'hosted-result',
        callId: id,
        tool: 'web_fetch',
        sources: [{ url: action.url }],
        ...(failed ? { error: 'url_not_accessible' } : {}),
      },
    ];
  }
  const query = typeof action.query === 'string' ? action.query : '';
  const sources = (Array.isArray(action.sources) ? action.sources : []).flatMap((s) =>
    isObject(s) && typeof s.url === 'string' ? [{ url: s.url }] : [],
  );
  return [
    { type: 'hosted-call', id, tool: 'web_search', input: { query } },
    { type: 'hosted-result', callId: id, tool: 'web_search', sources, ...(failed ? { error: 'unavailable' } : {}) },
  ];
}
