// Web search and web fetch as Anthropic shows them: `server_tool_use` then
// `web_search_tool_result` / `web_fetch_tool_result` blocks
// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool,
// .../web-fetch-tool). Both ways: polygate's hosted-tool loop answers with them
// (docs/hosted-tools.md), and a client sends them back in later turns, where they become parts the
// upstream reads as text.
//
// A search result's `encrypted_content` is opaque to clients. polygate puts its own envelope there
// (`pg1.` + base64url JSON of the snippet and date), so the snippet comes back with the history;
// Anthropic's own encrypted content cannot be read and only the title and URL are kept.
import type { HostedCallPart, HostedResultPart, HostedToolName, WebSource } from '../../src/ir/chat-request.ts';
import { isObject, type Json } from '../shared/narrow.ts';

const ENVELOPE = 'pg1.';

const toolOf = (name: unknown): HostedToolName | undefined =>
  name === 'web_search' || name === 'web_fetch' ? name : undefined;

export function sourceEnvelope(s: WebSource): string {
  const body = JSON.stringify({ ...(s.snippet ? { s: s.snippet } : {}), ...(s.date ? { d: s.date } : {}) });
  return ENVELOPE + Buffer.from(body).toString('base64url');
}

function openEnvelope(v: unknown): { snippet?: string; date?: string } {
  if (typeof v !== 'string' || !v.startsWith(ENVELOPE)) return {};
  try {
    const j: unknown = JSON.parse(Buffer.from(v.slice(ENVELOPE.length), 'base64url').toString('utf8'));
    if (!isObject(j)) return {};
    return {
      ...(typeof j.s === 'string' ? { snippet: j.s } : {}),
      ...(typeof j.d === 'string' ? { date: j.d } : {}),
    };
  } catch {
    return {};
  }
}

/** The response block of a hosted call or result. */
export function serverToolBlockOf(p: HostedCallPart | HostedResultPart): Json {
  if (p.type === 'hosted-call') return { type: 'server_tool_use', id: p.id, name: p.tool, input: p.input };
  if (p.tool === 'web_fetch') {
    const content: Json =
      p.error !== undefined || !p.page
        ? { type: 'web_fetch_tool_error', error_code: p.error ?? 'unavailable' }
        : {
            type: 'web_fetch_result',
            url: p.page.url,
            content: {
              type: 'document',
              source: { type: 'text', media_type: 'text/plain', data: p.page.text },
              ...(p.page.title ? { title: p.page.title } : {}),
            },
            ...(p.page.retrievedAt ? { retrieved_at: p.page.retrievedAt } : {}),
          };
    return { type: 'web_fetch_tool_result', tool_use_id: p.callId, content };
  }
  const content =
    p.error !== undefined
      ? { type: 'web_search_tool_result_error', error_code: p.error }
      : p.sources.map((s) => ({
          type: 'web_search_result',
          url: s.url,
          title: s.title ?? s.url,
          encrypted_content: sourceEnvelope(s),
          page_age: s.date ?? null,
        }));
  return { type: 'web_search_tool_result', tool_use_id: p.callId, content };
}

/** A request block sent back by the client; undefined for server tools other than these two. */
export function hostedPartOfBlock(b: Json): HostedCallPart | HostedResultPart | undefined {
  if (b.type === 'server_tool_use') {
    const tool = toolOf(b.name);
    if (!tool || typeof b.id !== 'string') return undefined;
    return { type: 'hosted-call', id: b.id, tool, input: isObject(b.input) ? b.input : {} };
  }
  const callId = typeof b.tool_use_id === 'string' ? b.tool_use_id : '';
  if (b.type === 'web_search_tool_result') {
    if (!Array.isArray(b.content)) {
      const code =
        isObject(b.content) && typeof b.content.error_code === 'string' ? b.content.error_code : 'unavailable';
      return { type: 'hosted-result', callId, tool: 'web_search', sources: [], error: code };
    }
    const sources = b.content.flatMap((r): WebSource[] =>
      isObject(r) && typeof r.url === 'string'
        ? [
            {
              url: r.url,
              ...(typeof r.title === 'string' ? { title: r.title } : {}),
              ...(typeof r.page_age === 'string' ? { date: r.page_age } : {}),
              ...openEnvelope(r.encrypted_content),
            },
          ]
        : [],
    );
    return { type: 'hosted-result', callId, tool: 'web_search', sources };
  }
  if (b.type === 'web_fetch_tool_result') {
    const c = isObject(b.content) ? b.content : {};
    const doc = isObject(c.content) ? c.content : {};
    const source = isObject(doc.source) ? doc.source : {};
    if (c.type !== 'web_fetch_result' || typeof c.url !== 'string') {
      const code = typeof c.error_code === 'string' ? c.error_code : 'unavailable';
      return { type: 'hosted-result', callId, tool: 'web_fetch', sources: [], error: code };
    }
    const page = {
      url: c.url,
      text: typeof source.data === 'string' ? source.data : '',
      ...(typeof doc.title === 'string' ? { title: doc.title } : {}),
      ...(typeof c.retrieved_at === 'string' ? { retrievedAt: c.retrieved_at } : {}),
    };
    return { type: 'hosted-result', callId, tool: 'web_fetch', sources: [{ url: c.url }], page };
  }
  return undefined;
}
