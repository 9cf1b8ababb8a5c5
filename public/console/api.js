// Calls to polygate from the console page: the session's CSRF token goes in a header on every
// call (the cookie alone is refused), bodies are JSON, and an error answer becomes an ApiError
// carrying the API's own message and field so the page can show it.

const csrfHeader = 'x-polygate-csrf';
/** @type {string | null} */
let csrf = null;
/** Called when the API says the session is gone (401), so the page can ask to sign in again. */
let onSignedOut = () => {};

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {string | null} param
   */
  constructor(status, message, param) {
    super(message);
    this.status = status;
    this.param = param;
  }
}

/** @param {() => void} fn */
export function whenSignedOut(fn) {
  onSignedOut = fn;
}

/** @param {Response} r */
async function answerOf(r) {
  if (r.status === 204) return null;
  const text = await r.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's HTML page): the text itself is the message.
  }
  if (r.ok) return json;
  const e = json && json.error;
  const message = e && typeof e.message === 'string' ? e.message : text.slice(0, 300) || r.statusText;
  throw new ApiError(r.status, message, e && typeof e.param === 'string' ? e.param : null);
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (csrf) headers[csrfHeader] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  try {
    return await answerOf(r);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      csrf = null;
      onSignedOut();
    }
    throw e;
  }
}

/** @param {Record<string, string | number | undefined>} q */
export function query(q) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The token goes in a form body, never in the URL. @param {string} token */
export async function signIn(token) {
  const r = await fetch('/console/session', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ token }).toString(),
    credentials: 'same-origin',
  });
  const view = await answerOf(r);
  csrf = view.csrf_token;
  return view;
}

/** The session the cookie names, after a reload of the page; null when there is none. */
export async function currentSession() {
  const r = await fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' });
  if (r.status === 401) return null;
  const view = await answerOf(r);
  csrf = view.csrf_token;
  return view;
}

export async function signOut() {
  await api('DELETE', '/console/session');
  csrf = null;
}
