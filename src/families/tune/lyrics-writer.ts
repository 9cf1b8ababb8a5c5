// Lyrics through a chat model (tune.lyrics_model): lyrics tasks, and the lyrics, title and tags
// of inspiration mode, are written by any configured chat upstream through the chat IR, so the
// operator picks who writes words independently of who makes music.
import type { ChatRequest } from '../../ir/chat-request.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { BreakerBoard } from '../../services/resilience/breaker-board.ts';
import { runRoutes } from '../../services/resilience/run-routes.ts';
import type { Runtime } from '../../services/runtime/runtime.ts';

export type WrittenLyrics = { title: string; tags: string; text: string };

const songInstructions = [
  'You write song lyrics. Reply in exactly this form and nothing else:',
  'Title: <a short song title>',
  'Tags: <3 to 5 comma-separated music style tags>',
  'Lyrics:',
  '<the lyrics, with sections such as [Verse], [Chorus] and [Bridge]>',
].join('\n');

const lyricsInstructions = [
  'You write song lyrics on the theme or keywords the user gives. Reply in exactly this form and nothing else:',
  'Title: <a short song title>',
  'Lyrics:',
  '<the lyrics, with sections such as [Verse], [Chorus] and [Bridge]>',
].join('\n');

/** A title from the first words of the theme, for answers that do not follow the form. */
function titleFrom(theme: string): string {
  const words = theme
    .replace(/[^\p{L}\p{N}\s']/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 5);
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ') || 'Untitled';
}

/**
 * Reads `Title:` / `Tags:` / `Lyrics:` from the answer. A model that ignores the form (or the
 * `echo` provider, which answers with the theme itself) still yields usable lyrics: the whole
 * answer, with a title made from the theme.
 */
export function parseWrittenLyrics(answer: string, theme: string): WrittenLyrics {
  // Labels as models write them: `Title:`, `**Title:**`, `## Title:`.
  const clean = (v: string | undefined): string | undefined => v?.trim().replace(/^["'*_\s]+|["'*_\s]+$/g, '');
  const title = clean(/^[\s*_#]*title[\s*_]*:(.+)$/im.exec(answer)?.[1]);
  const tags = clean(/^[\s*_#]*tags[\s*_]*:(.+)$/im.exec(answer)?.[1]);
  const lyricsAt = /^[\s*_#]*lyrics[\s*_]*:[\s*_]*$/im.exec(answer);
  const text = (
    lyricsAt
      ? answer.slice(lyricsAt.index + lyricsAt[0].length)
      : title || tags
        ? answer.replace(/^[\s*_#]*(title|tags)[\s*_]*:.*$/gim, '')
        : answer
  ).trim();
  return { title: title || titleFrom(theme), tags: tags || 'pop', text: text || theme.trim() };
}

/** Asks the configured chat model through the chat route loop (src/services/resilience/run-routes.ts). */
export async function writeLyrics(
  runtime: Runtime,
  model: string,
  theme: string,
  purpose: 'song' | 'lyrics',
  signal: AbortSignal,
  breakers: BreakerBoard,
): Promise<WrittenLyrics> {
  const request: ChatRequest = {
    model,
    system: [{ type: 'text', text: purpose === 'song' ? songInstructions : lyricsInstructions }],
    messages: [{ role: 'user', parts: [{ type: 'text', text: theme }] }],
    tools: [],
    maxTokens: 2000,
    sampling: {},
    stream: false,
    extensions: {},
  };
  let written: WrittenLyrics | undefined;
  await runRoutes({
    family: 'tune',
    model,
    routes: runtime.router.plan(model),
    signal,
    breakers,
    noRoute: () => new GatewayError('unavailable', `tune.lyrics_model '${model}' has no enabled chat provider`),
    serve: async (route) => {
      const provider = runtime.chatProviders.get(route.provider);
      if (!provider) return { served: false };
      const result = await provider.complete(request, route.model, {
        signal,
        warn: () => undefined,
        timeouts: route.timeouts,
      });
      const answer = result.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      written = parseWrittenLyrics(answer, theme);
      return { served: true, upstreamFailed: false };
    },
  });
  if (!written) throw new GatewayError('unavailable', `tune.lyrics_model '${model}' has no enabled chat provider`);
  return written;
}
