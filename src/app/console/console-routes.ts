// The operator console (docs/console.md): the page, its files, and its sign-in. Off (404) while
// admin.token is unset, like the admin API it drives. The page calls the admin API itself
// (/admin/*) with the session cookie and its CSRF header (src/app/admin-routes.ts, requireAdmin).
import coBody from 'co-body';
import { GatewayError, invalid } from '../../ir/gateway-error.ts';
import { sameSecret } from '../../services/auth/same-secret.ts';
import { adminTokenMatches } from '../admin-throttle.ts';
import { assetText, consoleAssets, consolePage } from './console-assets.ts';
import { consoleHeaders, noStore } from './console-headers.ts';
import { csrfHeader, sessionCookie, sessionLifetimeMs, sessionsOf } from './console-sessions.ts';
import type { GatewayContext, GatewayMiddleware, GatewayRouter } from '../../services/runtime/gateway-context.ts';

const tokenOf = (ctx: GatewayContext): string => {
  const token = ctx.state.runtime.config.admin.token;
  if (token === undefined) throw new GatewayError('not-found', 'the console is off (set admin.token in the config)');
  return token;
};

/** Every console answer, errors included, carries the security headers. */
const consoleScope: GatewayMiddleware = async (ctx, next) => {
  ctx.set(consoleHeaders);
  tokenOf(ctx);
  await next();
};

/**
 * A browser names the page that sent a POST or DELETE in `Origin`: one from another origin is
 * refused before anything else (a login CSRF, a cross-site sign-out). No Origin: not a browser
 * request made for a page, nothing to check.
 */
const sameOrigin = (ctx: GatewayContext): void => {
  const origin = ctx.get('origin');
  if (origin !== '' && origin !== `${ctx.protocol}://${ctx.host}`)
    throw new GatewayError('permission', 'the console answers only its own pages (Origin is another site)');
};

function setSessionCookie(ctx: GatewayContext, value: string, maxAge: number): void {
  ctx.cookies.set(sessionCookie, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.protocol === 'https',
    path: '/',
    maxAge,
    overwrite: true,
  });
}

/** The sign-in form: `token` and nothing else, url-encoded, a few KiB at most. */
async function readToken(ctx: GatewayContext): Promise<string> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new GatewayError('invalid-request', 'sign in with a form: content-type application/x-www-form-urlencoded', {
      status: 415,
      param: 'content-type',
    });
  const form = (await coBody.form(ctx.req, { limit: '4kb', queryString: { depth: 0 } })) as Record<string, unknown>;
  for (const name of Object.keys(form))
    if (name !== 'token') throw invalid(name.slice(0, 64), `${name.slice(0, 64)}: not a field of the sign-in form`);
  const token = form.token;
  if (typeof token !== 'string' || token === '') throw invalid('token', 'token: the admin token is required');
  return token;
}

export function registerConsoleRoutes(router: GatewayRouter): void {
  router.get('/console', consoleScope, (ctx) => {
    ctx.set(noStore);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = assetText(consolePage);
  });
  for (const [path, asset] of Object.entries(consoleAssets)) {
    router.get(`/console/${path}`, consoleScope, (ctx) => {
      ctx.type = asset.type;
      // Revalidated on every load: an upgrade's files are never mixed with the last version's.
      ctx.set('cache-control', 'no-cache');
      ctx.body = assetText(asset.file, asset.rewrite);
    });
  }

  router.post('/console/session', consoleScope, async (ctx) => {
    sameOrigin(ctx);
    const token = tokenOf(ctx);
    const presented = await readToken(ctx);
    if (!adminTokenMatches(ctx, presented, token))
      throw new GatewayError('authentication', 'that is not the admin token');
    const { id, view } = sessionsOf(ctx.state.services).create(token);
    setSessionCookie(ctx, id, sessionLifetimeMs);
    ctx.set(noStore);
    ctx.body = view;
  });

  /** The CSRF token of the session the cookie names (a reloaded page reads it here). */
  router.get('/console/session', consoleScope, (ctx) => {
    ctx.set(noStore);
    const s = sessionsOf(ctx.state.services).find(ctx.cookies.get(sessionCookie), tokenOf(ctx));
    if (!s) throw new GatewayError('authentication', 'not signed in');
    ctx.body = s.view;
  });

  /** Sign-out: the session ends here and its cookie is cleared; it needs the CSRF header like any change. */
  router.delete('/console/session', consoleScope, (ctx) => {
    sameOrigin(ctx);
    const sessions = sessionsOf(ctx.state.services);
    const id = ctx.cookies.get(sessionCookie);
    const s = sessions.find(id, tokenOf(ctx));
    if (!s || !sameSecret(ctx.get(csrfHeader), s.csrf))
      throw new GatewayError('permission', `sign-out needs the session's CSRF token in ${csrfHeader}`);
    sessions.delete(id!);
    setSessionCookie(ctx, '', 0);
    ctx.status = 204;
  });
}
