// The headers of every console answer (docs/console.md, "Security rules"). The page loads only
// its own files: no inline script or style, no other origin, no frame around it, no form posted
// elsewhere, no plugin, and the browser sniffs no type.

/** Content-Security-Policy of the page and its files. */
export const consoleCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export const consoleHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': consoleCsp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Answers that hold data (the page, a session's CSRF token): never kept by a cache or the history. */
export const noStore = { 'cache-control': 'no-store' } as const;
