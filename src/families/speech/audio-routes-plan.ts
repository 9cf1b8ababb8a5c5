// Model → route → audio provider for the `openai-audio` format, with the same rules as chat: unknown
// model 404, outside the key's allow-list 403, and the chat route loop (src/services/resilience/run-routes.ts):
// retries, breakers and the next route on a retryable failure (408, 429, 5xx, timeouts).
import { warningFieldLabel, warningsHeader } from '../../infra/metrics/warning-fields.ts';
import type { Context } from 'koa';
import { GatewayError, invalid } from '../../ir/gateway-error.ts';
import { checkModelName } from '../../ir/model-name.ts';
import { routeHeader } from '../../infra/http/header-value.ts';
import { translationWarnings } from '../../infra/metrics/registry.ts';
import { noRoute } from '../chat/chat-handler.ts';
import type { RequestState } from '../../services/runtime/request-state.ts';
import { runRoutes, type RouteAttempts } from '../../services/resilience/run-routes.ts';
import { admitRoute, providerRefusal } from '../../services/access/budgets.ts';
import type { Route } from '../../services/routing/model-router.ts';
import { traceOf } from '../../services/tracing/request-trace.ts';
import type { AudioCall, AudioProvider } from './audio-provider.ts';
import { audioProviderOf, servesAudio } from './speech-providers.ts';

export type AudioAttempt<T> = (provider: AudioProvider, route: Route, call: AudioCall) => Promise<T>;

const nothing = (): { costNano: number; tokens: number } => ({ costNano: 0, tokens: 0 });

/**
 * Runs `attempt` on the model's routes until one answers. Dropped-field warnings of the route
 * that answered go to the `x-polygate-warnings` header and the translation-warnings metric.
 */
export async function serveAudio<T>(ctx: Context, model: string, what: string, attempt: AudioAttempt<T>): Promise<T> {
  const state = ctx.state as RequestState & { attempts?: RouteAttempts };
  const runtime = state.runtime;
  state.model = checkModelName(model);
  if (!runtime.router.has(model))
    throw new GatewayError('not-found', `model '${model}' does not exist`, { param: 'model' });
  if (!state.key.allows(model))
    throw new GatewayError('permission', `this API key may not use model '${model}'`, { param: 'model' });
  const configured = runtime.config.models[model]?.routes ?? [];
  if (
    !configured.some((r) => runtime.config.providers[r.provider] && servesAudio(runtime.config.providers[r.provider]))
  ) {
    throw invalid('model', `model: '${model}' is not a speech model; it cannot ${what}`);
  }
  const routes = runtime.router.plan(model).filter((r) => audioProviderOf(runtime, r.provider) !== undefined);
  if (routes.length === 0) throw noRoute(runtime, model);

  const abort = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  let answered: { result: T } | undefined;
  state.attempts = { attempts: 0 };
  await runRoutes({
    family: 'audio',
    model,
    routes,
    signal: abort.signal,
    breakers: state.services.breakers,
    report: state.attempts,
    trace: traceOf(state),
    noRoute: () => providerRefusal(state) ?? noRoute(runtime, model),
    serve: async (route) => {
      const provider = audioProviderOf(runtime, route.provider);
      if (!provider) return { served: false };
      // A provider over its budget is skipped; speech reserves nothing (its cost is known as it ends).
      if (!(await admitRoute(state, route.provider, nothing))) return { served: false };
      state.path = {
        provider: route.provider,
        upstream_format: provider.wireFormat,
        // An OpenAI-compatible upstream gets the client's own format back: a relay, not a translation.
        mode: provider.wireFormat === 'openai-audio' ? 'passthrough' : 'translate',
        upstreamModel: route.model,
      };
      const warnings: string[] = [];
      const call: AudioCall = {
        signal: abort.signal,
        timeouts: route.timeouts,
        warn: (field, message) => {
          warnings.push(`${field}: ${message}`);
          translationWarnings.inc({
            inbound_format: 'openai-audio',
            upstream_format: provider.wireFormat,
            field: warningFieldLabel('openai-audio', field),
          });
        },
      };
      answered = { result: await attempt(provider, route, call) };
      ctx.set('x-polygate-route', routeHeader(route.provider, route.model));
      const header = warningsHeader(warnings);
      if (header) ctx.set('x-polygate-warnings', header);
      return { served: true, upstreamFailed: false };
    },
  });
  if (!answered) throw providerRefusal(state) ?? noRoute(runtime, model);
  return answered.result;
}
