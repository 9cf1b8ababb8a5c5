import type Router from '@koa/router';
import type Koa from 'koa';
import { anthropicMessages } from '../../../adapters/anthropic-messages/index.ts';
import { gemini } from '../../../adapters/gemini/index.ts';
import { openaiChat } from '../../../adapters/openai-chat/index.ts';
import { authenticate } from '../../services/access/authenticate.ts';
import type { RequestState } from '../../services/runtime/request-state.ts';
import { anthropicModel, anthropicModelList } from './anthropic-models.ts';
import { geminiModel, geminiModelList } from './gemini-models.ts';
import { findModel, listModels } from './model-catalog.ts';
import { openaiModel, openaiModelList } from './openai-models.ts';

type ModelsFormat = 'openai-chat' | 'anthropic-messages' | 'gemini';
const param = (ctx: Koa.Context, name: string): string => String((ctx as unknown as { params: Record<string, string> }).params[name] ?? '');
const stateOf = (ctx: Koa.Context): RequestState => ctx.state as RequestState;
const auth: Record<ModelsFormat, Koa.Middleware> = { 'anthropic-messages': authenticate(anthropicMessages), 'openai-chat': authenticate(openaiChat), gemini: authenticate(gemini) };

/**
 * `/v1/models` serves OpenAI, Anthropic and Gemini clients alike; the format modules' path rules
 * tell them apart (`anthropic-version`, a Gemini key; src/infra/http/format-of-path.ts) and the request
 * is authenticated and answered, errors included, in that format. `/v1beta/models` is Gemini's only.
 */
const formatOf = (ctx: Koa.Context): ModelsFormat => {
  const f = stateOf(ctx).format?.name;
  return f === 'anthropic-messages' || f === 'gemini' ? f : 'openai-chat';
};
const authenticateAsFormat: Koa.Middleware = (ctx, next) => auth[formatOf(ctx)](ctx, next);

const list: Koa.Middleware = (ctx) => {
  const { runtime, key } = stateOf(ctx);
  const format = formatOf(ctx);
  switch (format) {
    case 'openai-chat':
      ctx.body = openaiModelList(listModels(runtime, key, 'any'));
      return;
    case 'anthropic-messages':
      ctx.body = anthropicModelList(listModels(runtime, key, 'chat'), ctx.query);
      return;
    case 'gemini':
      ctx.body = geminiModelList(listModels(runtime, key, 'chat'), ctx.query);
      return;
    default: {
      const never: never = format;
      return never;
    }
  }
};

const get: Koa.Middleware = (ctx) => {
  const { runtime, key } = stateOf(ctx);
  const format = formatOf(ctx);
  const id = param(ctx, 'model').replace(format === 'gemini' ? /^models\// : /^$/, '');
  stateOf(ctx).model = id;
  switch (format) {
    case 'openai-chat':
      ctx.body = openaiModel(findModel(runtime, key, id, 'any', (m) => `The model '${m}' does not exist or you do not have access to it.`));
      return;
    case 'anthropic-messages':
      ctx.body = anthropicModel(findModel(runtime, key, id, 'chat', (m) => `model: ${m}`));
      return;
    case 'gemini':
      ctx.body = geminiModel(findModel(runtime, key, id, 'chat', (m) => `models/${m} is not found, or is not supported for generateContent.`));
      return;
    default: {
      const never: never = format;
      return never;
    }
  }
};

/**
 * Model discovery (docs/discovery.md): each format's list and get, filtered by the key's model
 * allow-list. Lists hold the exact names under `models:` that can serve now; a name only a glob
 * matches is not listed but can be retrieved.
 */
export function registerModelsRoutes(router: Router): void {
  for (const prefix of ['/v1/models', '/v1beta/models']) {
    router.get(prefix, authenticateAsFormat, list);
    router.get(`${prefix}/:model`, authenticateAsFormat, get);
  }
}
