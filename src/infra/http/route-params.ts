// A matched route's path parameters (`/v1/responses/:id`, `/tune/fetch/:task_id`…). @koa/router
// puts them on the context it routed; a handler typed with Koa's own context does not see them,
// so this is the one place that reads them.

/** The route's parameters: the router's own object (a handler may add one, as method dispatch does); empty off a route. */
export function routeParams(ctx: object): Record<string, string> {
  const routed = ctx as { params?: Record<string, string> };
  return routed.params ?? {};
}

/** One path parameter; an empty string when the route has none of that name. */
export const routeParam = (ctx: object, name: string): string => String(routeParams(ctx)[name] ?? '');
