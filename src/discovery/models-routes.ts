import type Router from '@koa/router';
import type Koa from 'koa';
import { authenticate } from '../http/authenticate.ts';
import type { Family } from '../http/family.ts';
import type { RequestState } from '../pipeline/request-state.ts';
import { anthropicModel, anthropicModelList } from './anthropic-models.ts';
import { geminiModel, geminiModelList } from './gemini-models.ts';
import { findModel, listModels } from './model-catalog.ts';
import { openaiModel, openaiModelList } from './openai-models.ts';

type ModelsFamily = 'chat' | 'messages' | 'gemini';
const param = (ctx: Koa.Context, name: string): string => String((ctx as unknown as { params: Record<string, string> }).params[name] ?? '');
const stateOf = (ctx: Koa.Context): RequestState => ctx.state as RequestState;
const auth: Record<ModelsFamily, Koa.Middleware> = { messages: authenticate('messages'), chat: authenticate('chat'), gemini: authenticate('gemini') };

/**
 * `/v1/models` serves OpenAI, Anthropic and Gemini clients alike; src/http/family.ts tells them
 * apart (`anthropic-version`, a Gemini key) and the request is authenticated and answered, errors
 * included, as that family. `/v1beta/models` is Gemini's only.
 */
const familyOf = (ctx: Koa.Context): ModelsFamily => {
  const f: Family | undefined = stateOf(ctx).family;
  return f === 'messages' || f === 'gemini' ? f : 'chat';
};
const authenticateAsFamily: Koa.Middleware = (ctx, next) => auth[familyOf(ctx)](ctx, next);

const list: Koa.Middleware = (ctx) => {
  const { runtime, key } = stateOf(ctx);
  const family = familyOf(ctx);
  switch (family) {
    case 'chat':
      ctx.body = openaiModelList(listModels(runtime, key, 'any'));
      return;
    case 'messages':
      ctx.body = anthropicModelList(listModels(runtime, key, 'chat'), ctx.query);
      return;
    case 'gemini':
      ctx.body = geminiModelList(listModels(runtime, key, 'chat'), ctx.query);
      return;
    default: {
      const never: never = family;
      return never;
    }
  }
};

const get: Koa.Middleware = (ctx) => {
  const { runtime, key } = stateOf(ctx);
  const family = familyOf(ctx);
  const id = param(ctx, 'model').replace(family === 'gemini' ? /^models\// : /^$/, '');
  stateOf(ctx).model = id;
  switch (family) {
    case 'chat':
      ctx.body = openaiModel(findModel(runtime, key, id, 'any', (m) => `The model '${m}' does not exist or you do not have access to it.`));
      return;
    case 'messages':
      ctx.body = anthropicModel(findModel(runtime, key, id, 'chat', (m) => `model: ${m}`));
      return;
    case 'gemini':
      ctx.body = geminiModel(findModel(runtime, key, id, 'chat', (m) => `models/${m} is not found, or is not supported for generateContent.`));
      return;
    default: {
      const never: never = family;
      return never;
    }
  }
};

/**
 * Model discovery (docs/discovery.md): each family's list and get, filtered by the key's model
 * allow-list. Lists hold the exact names under `models:` that can serve now; a name only a glob
 * matches is not listed but can be retrieved.
 */
export function registerModelsRoutes(router: Router): void {
  for (const prefix of ['/v1/models', '/v1beta/models']) {
    router.get(prefix, authenticateAsFamily, list);
    router.get(`${prefix}/:model`, authenticateAsFamily, get);
  }
}
