// A test's gateway config names each model's routes as `{ provider, model }` objects. Most tests
// only say "this model goes to that provider's upstream model, then to that one": written here as
// 'provider/upstream-model' strings, so the config reads as the routing it sets up.

export type Route = { provider: string; model: string; [option: string]: unknown };

/** The route to 'provider/upstream-model' (the upstream model may itself contain '/'), with options. */
export function route(target: string, options: Record<string, unknown> = {}): Route {
  const slash = target.indexOf('/');
  if (slash < 1) throw new Error(`route target "${target}" is not provider/model`);
  return { provider: target.slice(0, slash), model: target.slice(slash + 1), ...options };
}

/** A model's `{ routes }`, tried in the order given (a fallback chain when there are two or more). */
export function routesTo(...targets: (string | Route)[]): { routes: Route[] } {
  return { routes: targets.map((target) => (typeof target === 'string' ? route(target) : target)) };
}

/** A config's `models`, each name routed to one target or to a fallback chain of targets. */
export function modelRoutes(map: Record<string, string | string[]>): Record<string, { routes: Route[] }> {
  return Object.fromEntries(
    Object.entries(map).map(([name, targets]) => [name, routesTo(...(Array.isArray(targets) ? targets : [targets]))]),
  );
}
