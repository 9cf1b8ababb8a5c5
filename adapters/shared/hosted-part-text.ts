// A hosted tool's call and result (web search, web fetch) as the text an upstream reads: whichever
// format ran it (polygate's own loop, or a provider), an upstream without that tool sees what was
// searched and found, so a long session keeps its sources (docs/hosted-tools.md).
import type { HostedCallPart, HostedResultPart } from '../../src/ir/chat-request.ts';

export function hostedPartText(p: HostedCallPart | HostedResultPart): string {
  if (p.type === 'hosted-call') return `[${p.tool} ${JSON.stringify(p.input)}]`;
  if (p.error !== undefined) return `[${p.tool} result: error ${p.error}]`;
  if (p.page) {
    const title = p.page.title ? `${p.page.title}\n` : '';
    return `[web_fetch result: ${p.page.url}]\n${title}${p.page.text}`;
  }
  if (p.sources.length === 0) return `[${p.tool} result: no results]`;
  const lines = p.sources.map((s, i) =>
    [
      `${i + 1}. ${s.title ?? s.url}`,
      `   URL: ${s.url}`,
      ...(s.date ? [`   Date: ${s.date}`] : []),
      ...(s.snippet ? [`   ${s.snippet}`] : []),
    ].join('\n'),
  );
  return `[${p.tool} result]\n${lines.join('\n')}`;
}
