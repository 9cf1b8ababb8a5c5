// Web searches run for the answer (polygate's own, docs/hosted-tools.md) as Gemini reports Google
// Search grounding: the candidate's `groundingMetadata` with the queries and the web pages found
// (https://ai.google.dev/gemini-api/docs/google-search). Gemini's segment offsets are its own,
// so `groundingSupports` is left out.
import type { Part } from '../../src/ir/chat-request.ts';
import type { Json } from '../shared/narrow.ts';

export function groundingMetadataOf(parts: readonly Part[]): Json | undefined {
  // Most answers ran no hosted tool: no lists and no set for them.
  if (!ranHostedTool(parts)) return undefined;
  const queries: string[] = [];
  const chunks: Json[] = [];
  const seen = new Set<string>();
  for (const p of parts) {
    if (p.type === 'hosted-call' && typeof p.input.query === 'string') queries.push(p.input.query);
    if (p.type !== 'hosted-result') continue;
    for (const s of p.sources) {
      if (seen.has(s.url)) continue;
      seen.add(s.url);
      chunks.push({ web: { uri: s.url, title: s.title ?? new URL(s.url).hostname } });
    }
  }
  if (queries.length === 0 && chunks.length === 0) return undefined;
  return { webSearchQueries: queries, groundingChunks: chunks };
}

function ranHostedTool(parts: readonly Part[]): boolean {
  for (let i = 0; i < parts.length; i++)
    if (parts[i].type === 'hosted-call' || parts[i].type === 'hosted-result') return true;
  return false;
}
