import type { Family } from '../http/family.ts';

type HeaderBag = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

function bearer(headers: HeaderBag): string | undefined {
  const h = first(headers.authorization);
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : undefined;
}

/**
 * Reads the credential the way each family's clients send it (README, "Families served").
 * Messages accepts both: the current Anthropic SDK sends `Authorization: Bearer`, older clients
 * `x-api-key`. Gemini clients send `x-goog-api-key` (the Google GenAI SDK) or `?key=`.
 */
export function extractCredential(family: Family, headers: HeaderBag, query: Record<string, unknown>): string | undefined {
  switch (family) {
    case 'tune':
    case 'audio':
    case 'responses':
    case 'chat':
      return bearer(headers);
    case 'gemini': {
      const q = query.key;
      return first(headers['x-goog-api-key']) ?? (typeof q === 'string' ? q : undefined);
    }
    case 'messages':
      return first(headers['x-api-key']) ?? bearer(headers);
    default: {
      const never: never = family;
      throw new Error(`unknown family ${String(never)}`);
    }
  }
}
