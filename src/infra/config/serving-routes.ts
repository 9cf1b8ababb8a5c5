// Which names are globs and which routes of a model serve now: facts of the config itself, read
// when it is loaded (src/infra/config/load-config.ts warns about models nothing serves) and by the router
// that plans routes from it (src/services/routing/model-router.ts).

export const isGlob = (name: string): boolean => /[*?]/.test(name);

/**
 * The routes of a model that serve now: its enabled routes, except that `standby` routes serve
 * only while none of the model's other routes has an enabled provider (the default config's echo
 * stand-in answers without keys and never hides a real provider's failures).
 */
export function servingRoutes<R extends { provider: string; standby?: boolean }>(
  routes: readonly R[],
  disabled: ReadonlyMap<string, string>,
): R[] {
  const enabled = routes.filter((r) => !disabled.has(r.provider));
  const primary = enabled.filter((r) => !r.standby);
  return primary.length > 0 ? primary : enabled;
}
