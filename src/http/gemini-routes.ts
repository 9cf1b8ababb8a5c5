import type Router from '@koa/router';
import type Koa from 'koa';
import { geminiClientCodec } from '../../adapters/gemini/index.ts';
import { geminiCountTokens } from '../discovery/count-tokens-routes.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import { chatHandler } from '../pipeline/chat-handler.ts';
import { authenticate } from './authenticate.ts';
import { jsonBody } from './json-body.ts';

const generate = chatHandler(geminiClientCodec, 'gemini');
const streamGenerate = chatHandler(geminiClientCodec, 'gemini', { streamByRoute: true });

/**
 * `/v1beta/models/{model}:{method}`, and the same under `/v1/models/` (current @google/genai
 * versions call either). The method follows a colon inside the last path segment, which router
 * patterns cannot split, so one route takes the segment and dispatches on the method.
 */
const dispatch: Koa.Middleware = async (ctx) => {
  const segment = String((ctx as unknown as { params: Record<string, string> }).params.target ?? '');
  const colon = segment.lastIndexOf(':');
  const method = colon < 0 ? '' : segment.slice(colon + 1);
  const params = (ctx as unknown as { params: Record<string, string> }).params;
  // The router decoded the segment once already (a malformed escape is left as it came, and then
  // names no model: 404). Decoding again would serve `ech%256f` as `echo`.
  params.model = colon < 0 ? segment : segment.slice(0, colon);
  switch (method) {
    case 'generateContent':
      return generate(ctx as Koa.Context);
    case 'streamGenerateContent':
      // Without alt=sse the real API answers one JSON array at the end; every SDK asks for SSE.
      if (ctx.query.alt !== 'sse') throw new GatewayError('invalid-request', 'streamGenerateContent is served as server-sent events only: add alt=sse', { param: 'alt' });
      return streamGenerate(ctx as Koa.Context);
    case 'countTokens':
      return geminiCountTokens(ctx as Koa.Context);
    default:
      throw new GatewayError('not-found', `method '${method || segment}' is not supported; use generateContent, streamGenerateContent or countTokens`);
  }
};

export function registerGeminiRoutes(router: Router): void {
  for (const prefix of ['/v1beta/models/', '/v1/models/']) {
    router.post(`${prefix}:target`, authenticate('gemini'), jsonBody, dispatch);
  }
}
