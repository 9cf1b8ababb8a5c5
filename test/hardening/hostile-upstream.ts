// An OpenAI Chat Completions upstream that misbehaves on purpose, for the hardening tests: by the
// requested model it quotes the credentials it was sent in an error body (`leak`, `leak-500`),
// refuses polygate's key (`reject`), or answers normally with headers a relay must not pass on
// (`hop`). Every request's headers are recorded.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenLoopback, sendJson } from '../emulators/emulator-server.ts';

export type HostileUpstream = { url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> };

/** A one-choice chat.completion as OpenAI shapes it. */
const completion = (id: string, model: unknown, content: string, tokens: { prompt: number; completion: number }) => ({
  id,
  object: 'chat.completion',
  created: 1,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
  usage: {
    prompt_tokens: tokens.prompt,
    completion_tokens: tokens.completion,
    total_tokens: tokens.prompt + tokens.completion,
  },
});
const oneEach = { prompt: 1, completion: 1 };

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({ ...req.headers });
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { model?: string };
    const auth = String(req.headers.authorization ?? '');
    const json = (status: number, value: unknown, headers: Record<string, string> = {}): void =>
      sendJson(res, status, value, headers);
    switch (body.model) {
      case 'leak':
        return json(400, {
          error: {
            message: `invalid request; you sent Authorization: ${auth}`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        });
      case 'leak-header':
        // An error whose headers quote what the upstream was sent, beside ones SDKs read.
        return json(
          429,
          { error: { message: 'slow down', type: 'rate_limit_error', param: null, code: null } },
          {
            'x-debug-authorization': auth,
            'x-upstream-internal': 'node-17.internal',
            'retry-after': '1',
            'x-ratelimit-remaining-requests': '0',
          },
        );
      case 'leak-header-ok':
        return json(200, completion('chatcmpl-leak', body.model, 'ok', oneEach), { 'x-debug-authorization': auth });
      case 'huge-usage':
        // Usage no real upstream reports: 1e15 tokens (issue #30, finding 7).
        return json(200, completion('chatcmpl-huge', body.model, 'ok', { prompt: 1e15, completion: 1e15 }));
      case 'leak-500':
        res.writeHead(500, { 'content-type': 'text/plain' });
        return void res.end(`upstream crashed while checking ${auth}`);
      case 'reject':
        return json(401, {
          error: {
            message: `Incorrect API key provided: ${auth.slice(7)}`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        });
      default:
        return json(200, completion('chatcmpl-hop', body.model, 'fine', oneEach), {
          connection: 'x-hop-secret',
          'x-hop-secret': 'upstream-only',
          'proxy-authenticate': 'Basic realm="inner"',
          via: '1.1 inner-proxy',
          'x-forwarded-for': '10.0.0.5',
          'x-kept': 'yes',
        });
    }
  });
  return { seen, ...(await listenLoopback(server, '/v1')) };
}
