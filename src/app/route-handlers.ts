// The handler of every route kind (adapters/shared/format-module.ts, RouteKind), taken from the
// family that serves it: src/app/format-routes.ts registers each format's routes with these.
import type Koa from 'koa';
import type { Logger } from 'pino';
import { chatHandler } from '../families/chat/chat-handler.ts';
import { methodDispatch } from '../families/chat/method-dispatch.ts';
import { countTokensHandler } from '../families/discovery/count-tokens.ts';
import { modelRouteHandlers } from '../families/discovery/models-routes.ts';
import { storedResponseHandlers } from '../families/responses/responses-routes.ts';
import { speechRouteHandlers } from '../families/speech/speech-routes.ts';
import { tuneRouteHandlers } from '../families/tune/tune-routes.ts';
import { isChatFormat, type ChatFormatModule, type FormatModule } from '../infra/formats/formats.ts';
import type { ChatSession } from '../services/sessions/chat-session.ts';
import { ResponsesSession } from '../services/sessions/responses-session.ts';
import type { RouteHandlers } from './format-routes.ts';

function chatFormat(format: FormatModule): ChatFormatModule {
  if (!isChatFormat(format)) throw new Error(`format '${format.name}' describes chat routes but has no client codec`);
  return format;
}

/** The state a format keeps around its chat requests: a stored conversation when its module has one. */
function sessionOf(format: FormatModule): ((ctx: Koa.Context) => ChatSession) | undefined {
  const wire = format.conversation;
  return wire ? (ctx) => ResponsesSession.of(ctx, wire) : undefined;
}

/**
 * `list`: the formats the app serves. Their credential headers, all of them, are kept off every
 * same-format relay, so a format added to the list has its key dropped too.
 */
export function routeHandlers(list: readonly FormatModule[], log: Logger): RouteHandlers {
  const credentialHeaders: ReadonlySet<string> = new Set(list.flatMap((f) => f.credentialHeaders));
  const chat = (format: FormatModule, streamByRoute?: true): Koa.Middleware =>
    chatHandler(chatFormat(format), { session: sessionOf(format), credentialHeaders, streamByRoute });
  const count = (format: FormatModule): Koa.Middleware => countTokensHandler(chatFormat(format), sessionOf(format));
  return {
    chat: (format) => chat(format),
    'chat-methods': (format, route) =>
      methodDispatch(route.methods, {
        generate: chat(format),
        stream: chat(format, true),
        count: route.methods.count !== undefined ? count(format) : undefined,
      }),
    'count-tokens': count,
    ...modelRouteHandlers,
    ...speechRouteHandlers(log),
    ...storedResponseHandlers,
    ...tuneRouteHandlers,
  };
}
