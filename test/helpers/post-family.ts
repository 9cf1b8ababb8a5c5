// One user turn sent raw to a chat family's own route, in its own body shape and with its own
// credential header: for tests that read the status and error body the SDKs would hide or throw.
export type ChatFamily = 'messages' | 'chat' | 'responses' | 'gemini';

/** A JSON POST to `url`, with `headers` added to the content type. */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    signal,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export type FamilyTurn = {
  key: string;
  model: string;
  /** What the user says. */
  text: string;
  stream: boolean;
  /** Messages requires max_tokens; the other families leave it to the model. */
  maxTokens: number;
  signal?: AbortSignal;
};

export function postFamilyTurn(gatewayUrl: string, family: ChatFamily, turn: FamilyTurn): Promise<Response> {
  const { key, model, text, stream, signal } = turn;
  const bearer = { authorization: `Bearer ${key}` };
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    postJson(`${gatewayUrl}${path}`, headers, body, signal);
  switch (family) {
    case 'messages':
      return post(
        '/v1/messages',
        { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        { model, max_tokens: turn.maxTokens, stream, messages: [{ role: 'user', content: text }] },
      );
    case 'chat':
      return post('/v1/chat/completions', bearer, { model, stream, messages: [{ role: 'user', content: text }] });
    case 'responses':
      return post('/v1/responses', bearer, { model, stream, input: text });
    case 'gemini':
      return post(
        `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        { 'x-goog-api-key': key },
        { contents: [{ role: 'user', parts: [{ text }] }] },
      );
    default:
      return assertNeverFamily(family);
  }
}

function assertNeverFamily(family: never): never {
  throw new Error(`unknown family ${String(family)}`);
}
