// Sessions of the operator console (docs/console.md): signing in with the admin token creates one,
// held in this process's memory, named by a random id in an HttpOnly, SameSite=Strict cookie, with
// a CSRF token the page sends back as a header on every admin call. Nothing here outlives the
// process or crosses to another instance: an operator behind a load balancer signs in again on
// the instance that answers (sticky sessions) or uses the Bearer token.
import { createHash, randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { sameSecret } from '../../services/auth/same-secret.ts';

export const sessionCookie = 'polygate_console';
export const csrfHeader = 'x-polygate-csrf';
/** A session lasts this long from sign-in, however active (no sliding renewal to keep alive forever). */
export const sessionLifetimeMs = 8 * 3_600_000;
/** Sessions of one process at most; signing in past it ends the oldest. */
export const maxSessions = 32;

type Session = { csrf: string; tokenDigest: string; expiresAt: number };
export type SessionView = { csrf_token: string; expires_at: string };

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
/** Ids and CSRF tokens: 32 random bytes, base64url (the cookie and header alphabet). */
const randomId = (): string => randomBytes(32).toString('base64url');

export class ConsoleSessions {
  /** In creation order, so the first is the oldest. */
  readonly #sessions = new Map<string, Session>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** A new session for a caller who presented `adminToken` (already checked). */
  create(adminToken: string): { id: string; view: SessionView } {
    this.#sweep();
    while (this.#sessions.size >= maxSessions) this.#sessions.delete(this.#sessions.keys().next().value!);
    const id = randomId();
    const s: Session = {
      csrf: randomId(),
      tokenDigest: digest(adminToken),
      expiresAt: this.#now() + sessionLifetimeMs,
    };
    this.#sessions.set(id, s);
    return { id, view: viewOf(s) };
  }

  /**
   * The live session `id` names, signed in with the admin token in force now: a reload that
   * changes or removes admin.token ends every session made with the old one.
   */
  find(id: string | undefined, adminToken: string): { view: SessionView; csrf: string } | undefined {
    if (!id || id.length > 64) return undefined;
    const s = this.#sessions.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.#now() || s.tokenDigest !== digest(adminToken)) {
      this.#sessions.delete(id);
      return undefined;
    }
    return { view: viewOf(s), csrf: s.csrf };
  }

  delete(id: string): void {
    this.#sessions.delete(id);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, s] of this.#sessions) if (s.expiresAt <= now) this.#sessions.delete(id);
  }
}

const viewOf = (s: Session): SessionView => ({ csrf_token: s.csrf, expires_at: new Date(s.expiresAt).toISOString() });

/** One board per gateway (its services object): two gateways in one process share no session. */
const boards = new WeakMap<object, ConsoleSessions>();
export function sessionsOf(services: object): ConsoleSessions {
  let b = boards.get(services);
  if (!b) boards.set(services, (b = new ConsoleSessions()));
  return b;
}

/**
 * How the admin gate reads a console caller: `none` without a session cookie (the Bearer rule
 * then applies), `ok` for a live session with its CSRF header (compared in constant time), else
 * why not. The header is what a cross-site form or image cannot send, so a request the browser
 * made on another site's behalf never passes, even where SameSite is not honoured.
 */
export function sessionAdmits(
  ctx: Koa.Context,
  services: object,
  adminToken: string,
): 'none' | 'ok' | 'expired' | 'no-csrf' {
  const id = ctx.cookies.get(sessionCookie);
  if (id === undefined || id === '') return 'none';
  const s = sessionsOf(services).find(id, adminToken);
  if (!s) return 'expired';
  const presented = ctx.get(csrfHeader);
  return presented !== '' && sameSecret(presented, s.csrf) ? 'ok' : 'no-csrf';
}
