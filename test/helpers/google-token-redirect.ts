// google-auth-library posts service-account JWTs to https://oauth2.googleapis.com/token, a URL it
// does not let a key file change. Tests send those posts to an emulator instead, by rewriting that
// one URL in the HTTP client the library itself loads (gaxios, CommonJS, as google-auth-library
// requires it): the assertion, its signature and audience stay exactly what Google would receive.
import { createRequire } from 'node:module';

export const googleTokenUrl = 'https://oauth2.googleapis.com/token';

type GaxiosLike = { prototype: { request(this: unknown, opts?: { url?: string | URL }): Promise<unknown> } };

export function redirectGoogleTokens(to: string): () => void {
  const requireFromAuth = createRequire(createRequire(import.meta.url).resolve('google-auth-library'));
  const { Gaxios } = requireFromAuth('gaxios') as { Gaxios: GaxiosLike };
  const original = Gaxios.prototype.request;
  Gaxios.prototype.request = function (opts = {}) {
    const url = String(opts.url ?? '');
    return original.call(this, url === googleTokenUrl ? { ...opts, url: to } : opts);
  };
  return () => void (Gaxios.prototype.request = original);
}
