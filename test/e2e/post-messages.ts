// A POST to a gateway's /v1/messages with the headers the Anthropic SDK sends, for a test that reads
// what the SDK hides: the SSE bytes as they came, a relayed answer's headers.
import { TEST_KEY } from '../helpers/start-gateway.ts';

export function postMessages(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': TEST_KEY,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
