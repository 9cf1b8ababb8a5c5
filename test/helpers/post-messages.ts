// The Anthropic Messages call most gateway tests make, written once: a POST to /v1/messages with
// the key in x-api-key and the API version header, the body as JSON, the raw Response back (tests
// read its status and headers, which the SDK would hide or turn into throws).
import { TEST_KEY } from './start-gateway.ts';

export function postMessages(
  gatewayUrl: string,
  body: Record<string, unknown>,
  opts: { key?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${gatewayUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': opts.key ?? TEST_KEY,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      ...opts.headers,
    },
    body: JSON.stringify(body),
  });
}

/** A one-turn conversation: the user says `content`. */
export const userSays = (content: string): Array<{ role: 'user'; content: string }> => [{ role: 'user', content }];
