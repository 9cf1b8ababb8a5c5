// The client-facing API families and which one a path belongs to. Used to answer every error,
// including ones raised before a route matched (bad JSON, 413, 401), in the family's own shape.

export type Family = 'tune' | 'audio' | 'gemini' | 'responses' | 'messages' | 'chat';

export function familyOfPath(path: string): Family | undefined {
  if (path.startsWith('/tune/')) return 'tune';
  if (path.startsWith('/v1/audio/')) return 'audio';
  if (path.startsWith('/v1beta/') || path.startsWith('/v1/models/')) return 'gemini';
  if (path === '/v1/responses' || path.startsWith('/v1/responses/')) return 'responses';
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'messages';
  if (path === '/v1/chat/completions') return 'chat';
  return undefined;
}
