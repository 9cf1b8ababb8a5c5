import { checkModelName } from '../../ir/model-name.ts';
import type Koa from 'koa';
import type { FormatModule, ModelDiscovery } from '../../../adapters/shared/format-module.ts';
import type { RequestState } from '../../services/runtime/request-state.ts';
import { findModel, listModels } from './model-catalog.ts';
import { routeParam } from '../../infra/http/route-params.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

const stateOf = (ctx: GatewayContext): RequestState => ctx.state;

function discoveryOf(format: FormatModule): ModelDiscovery {
  if (!format.models) throw new Error(`format '${format.name}' has a model route but no models`);
  return format.models;
}

/**
 * Model discovery (docs/discovery.md): each format's list and get (routes of kind `model-list`
 * and `model-get`), filtered by the key's model allow-list, answered in the shape the format
 * module gives (`models`). Lists hold the exact names under `models:` that can serve now; a name
 * only a glob matches is not listed but can be retrieved. `/v1/models` is declared by several
 * formats: src/app/format-routes.ts sends the request to the one its path rules detect.
 */
export const modelRouteHandlers = {
  'model-list': (format: FormatModule): Koa.Middleware => {
    const models = discoveryOf(format);
    return (ctx) => {
      const { runtime, key } = stateOf(ctx);
      ctx.body = models.list(listModels(runtime, key, models.kinds), ctx.query);
    };
  },
  'model-get': (format: FormatModule): Koa.Middleware => {
    const models = discoveryOf(format);
    return (ctx) => {
      const state = stateOf(ctx);
      const id = models.idOf(routeParam(ctx, 'model'));
      state.model = checkModelName(id);
      ctx.body = models.get(findModel(state.runtime, state.key, id, models.kinds, models.notFound));
    };
  },
};
