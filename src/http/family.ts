// The client-facing API families and which one a path belongs to. Used to answer every error,
// including ones raised before a route matched (bad JSON, 413, 401), in the family's own shape.

export type Family = 'tune' | 'audio' | 'gemini' | 'responses' | 'messages' | 'chat';

type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * `/v1/models` and `/v1/models/{id}` are the model lists of OpenAI, Anthropic and Gemini alike
 * (@google/genai calls Gemini's `/v1` by default): the Anthropic SDK marks its requests with
 * `anthropic-version`, Gemini clients carry their key as `x-goog-api-key` or `?key=`. A method
 * after a colon (`{model}:generateContent`) is always Gemini's.
 */
export function familyOfPath(path: string, headers: HeaderBag = {}, query: Record<string, unknown> = {}): Family | undefined {
  if (path.startsWith('/tune/')) return 'tune';
  if (path.startsWith('/v1/audio/')) return 'audio';
  if (path.startsWith('/v1beta/')) return 'gemini';
  if (path === '/v1/models' || path.startsWith('/v1/models/')) {
    if (path.includes(':') || headers['x-goog-api-key'] !== undefined || query.key !== undefined) return 'gemini';
    return headers['anthropic-version'] !== undefined ? 'messages' : 'chat';
  }
  if (path === '/v1/responses' || path.startsWith('/v1/responses/')) return 'responses';
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'messages';
  if (path === '/v1/chat/completions') return 'chat';
  return undefined;
}
