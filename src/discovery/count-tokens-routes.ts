import type Router from '@koa/router';
import { authenticate } from '../http/authenticate.ts';
import { jsonBody } from '../http/json-body.ts';
import { ResponsesSession } from '../responses/responses-session.ts';
import { anthropicCount, geminiCount, responsesCount } from './count-clients.ts';
import { countTokensHandler } from './count-tokens.ts';

/** Gemini's `{model}:countTokens`, dispatched with the other methods by src/http/gemini-routes.ts. */
export const geminiCountTokens = countTokensHandler(geminiCount);

/** Anthropic's and OpenAI Responses' token counting (docs/discovery.md). */
export function registerCountTokensRoutes(router: Router): void {
  router.post('/v1/messages/count_tokens', authenticate('messages'), jsonBody, countTokensHandler(anthropicCount));
  // A Responses chain (previous_response_id) counts with the stored conversation, as a create would send it.
  router.post('/v1/responses/input_tokens', authenticate('responses'), jsonBody, countTokensHandler(responsesCount, (ctx) => ResponsesSession.of(ctx)));
}
