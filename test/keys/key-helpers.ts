// Helpers of the runtime keys tests (issue #25): the admin API as an operator calls it, and a
// chat call through the official OpenAI SDK as a developer's code makes it.
import OpenAI from 'openai';

export const ADMIN = 'admin-token-keys-0123456789abcdef';

export type Admin = {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
};

export function admin(url: string, token = ADMIN): Admin {
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    call,
    async json<T>(method: string, path: string, body?: unknown) {
      const r = await call(method, path, body);
      const text = await r.text();
      return { status: r.status, body: (text ? JSON.parse(text) : {}) as T };
    },
  };
}

export type Created = {
  key: { id: string; secret_hint: string; previous_secret_valid_until: string | null; [k: string]: unknown };
  secret: string;
};

/** One chat call with the OpenAI SDK (no retries: a refusal is seen as it is); the status or 200. */
export async function chatStatus(url: string, secret: string, model = 'echo'): Promise<number | string> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: secret, maxRetries: 0 });
  try {
    const r = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    return r.choices.length > 0 ? 200 : 'no choices';
  } catch (e) {
    if (e instanceof OpenAI.APIError) return e.status ?? 'no status';
    throw e;
  }
}

/** The OpenAI SDK's error for a refused call (its message and status). */
export async function chatError(url: string, secret: string): Promise<InstanceType<typeof OpenAI.APIError>> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: secret, maxRetries: 0 });
  try {
    await client.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] });
  } catch (e) {
    if (e instanceof OpenAI.APIError) return e;
    throw e;
  }
  throw new Error('the call was not refused');
}
