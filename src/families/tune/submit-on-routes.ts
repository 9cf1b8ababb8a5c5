// A music submission sent through the chat route loop (src/services/resilience/run-routes.ts): retries
// with backoff and Retry-After, breakers, and the next route only after an upstream failure
// (src/infra/upstream/failure-cause.ts). Used when a client submits (src/families/tune/task-service.ts) and
// when the runner submits a task whose lyrics it composed (src/families/tune/task-poller.ts).
import { GatewayError } from '../../ir/gateway-error.ts';
import type { TaskSubmission } from '../../ir/music-task.ts';
import type { BreakerBoard } from '../../services/resilience/breaker-board.ts';
import { runRoutes } from '../../services/resilience/run-routes.ts';
import type { Route } from '../../services/routing/model-router.ts';
import type { TuneProvider } from './tune-provider.ts';

export type Taken = { route: Route; upstreamId: string };

export async function submitOnRoutes(
  providers: Map<string, TuneProvider>,
  model: string,
  routes: Route[],
  submission: TaskSubmission,
  signal: AbortSignal,
  breakers: BreakerBoard,
): Promise<Taken> {
  const none = (): GatewayError =>
    new GatewayError('unavailable', `music model '${model}' has no enabled music provider`);
  let taken: Taken | undefined;
  await runRoutes({
    family: 'tune',
    model,
    routes,
    signal,
    breakers,
    noRoute: none,
    serve: async (route) => {
      const p = providers.get(route.provider);
      if (!p) return { served: false };
      taken = { route, upstreamId: await p.submit(submission, route.model) };
      return { served: true, upstreamFailed: false };
    },
  });
  if (!taken) throw none();
  return taken;
}
