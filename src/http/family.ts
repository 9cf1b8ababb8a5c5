// The client-facing API families and which one a path belongs to. Used to answer every error,
// including ones raised before a route matched (bad JSON, 413, 401, 404, 405), in the family's
// own shape, and to label every request's metrics and log line.

export type Family = 'tune' | 'audio' | 'gemini' | 'responses' | 'messages' | 'chat';

type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * The router (src/app.ts) matches paths case-insensitively and with one optional trailing slash
 * (@koa/router's `sensitive: false, strict: false`). Family detection reads the path through the
 * same rule, so `/V1/MESSAGES` and `/v1/chat/completions/` get the family of the route that
 * serves them. Only the comparison is normalised: the path itself (ids, model names) is not.
 */
export function routeComparable(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/**
 * `/v1/models` and `/v1/models/{id}` are the model lists of OpenAI, Anthropic and Gemini alike
 * (@google/genai calls Gemini's `/v1` by default): the Anthropic SDK marks its requests with
 * `anthropic-version`, Gemini clients carry their key as `x-goog-api-key` or `?key=`. A method
 * after a colon (`{model}:generateContent`) is always Gemini's.
 */
export function familyOfPath(rawPath: string, headers: HeaderBag = {}, query: Record<string, unknown> = {}): Family | undefined {
  const path = routeComparable(rawPath);
  if (path === '/tune' || path.startsWith('/tune/')) return 'tune';
  if (path.startsWith('/v1/audio/')) return 'audio';
  if (path === '/v1beta' || path.startsWith('/v1beta/')) return 'gemini';
  if (path === '/v1/models' || path.startsWith('/v1/models/')) {
    if (path.includes(':') || headers['x-goog-api-key'] !== undefined || query.key !== undefined) return 'gemini';
    return headers['anthropic-version'] !== undefined ? 'messages' : 'chat';
  }
  if (path === '/v1/responses' || path.startsWith('/v1/responses/')) return 'responses';
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'messages';
  if (path === '/v1/chat/completions' || path.startsWith('/v1/chat/')) return 'chat';
  return undefined;
}
