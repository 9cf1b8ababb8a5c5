// An Azure OpenAI resource on loopback: Azure's paths, credentials and error bodies in front of
// the Chat Completions and Responses emulators, which answer byte for byte as OpenAI does. Azure
// serves
//   POST /openai/deployments/{deployment}/chat/completions?api-version=…   (the deployment paths)
//   POST /openai/responses?api-version=…
//   POST /openai/v1/chat/completions, /openai/v1/responses                  (the v1 API, no version)
// with the key in an `api-key` header or an Entra ID token as `Authorization: Bearer`, and opens a
// streamed chat answer with a `prompt_filter_results` chunk that has no choices
// (https://learn.microsoft.com/azure/ai-foundry/openai/reference).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLoopback, readRequest, relayTo, scriptedReplies, sendJson } from './emulator-server.ts';
import type { Emulator } from './emulator-types.ts';
import { startOpenAIChatUpstream } from './openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from './openai-responses-upstream.ts';

export type AzureOptions = {
  /** The resource's key (`api-key`). */
  apiKey: string;
  /** An Entra ID access token the resource accepts as a bearer. */
  bearerToken: string;
  /** Deployment names that exist; any other answers 404 DeploymentNotFound. */
  deployments: readonly string[];
  /** Tokens an Entra ID authority issued (entra-authority.ts), accepted as bearers too. */
  entraTokens?: ReadonlySet<string>;
};

export const azureDefaults: AzureOptions = {
  apiKey: 'azure-upstream-key-0123456789',
  bearerToken: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra-test-token',
  deployments: ['gpt-4o-deploy', 'gpt-5-deploy'],
};

const accessDenied =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

/** `url` is the resource endpoint (https://NAME.openai.azure.com), what a provider's base_url names. */
export async function startAzureOpenAIUpstream(o: Partial<AzureOptions> = {}): Promise<Emulator> {
  const opts = { ...azureDefaults, ...o };
  const [chat, responses] = await Promise.all([startOpenAIChatUpstream(), startOpenAIResponsesUpstream()]);
  const s = scriptedReplies(() => {
    chat.reset();
    responses.reset();
  });
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { body, recorded } = await readRequest(req);
    s.requests.push(recorded);
    const url = new URL(req.url ?? '/', 'http://azure');
    const version = url.searchParams.get('api-version');
    const key = req.headers['api-key'];
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    // The v1 API also takes the key as a bearer (the plain OpenAI client sends it so).
    const v1 = url.pathname.startsWith('/openai/v1/');
    const allowed =
      key === opts.apiKey ||
      bearer === opts.bearerToken ||
      (v1 && bearer === opts.apiKey) ||
      (bearer !== undefined && opts.entraTokens?.has(bearer) === true);
    if (!allowed) return azureError(res, 401, '401', accessDenied);
    const deployment = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(url.pathname)?.[1];
    let target: { emu: Emulator; path: string; model?: string } | undefined;
    if (deployment !== undefined && version) {
      if (!opts.deployments.includes(decodeURIComponent(deployment)))
        return azureError(
          res,
          404,
          'DeploymentNotFound',
          'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
        );
      target = { emu: chat, path: '/v1/chat/completions', model: decodeURIComponent(deployment) };
    } else if (url.pathname === '/openai/responses' && version) target = { emu: responses, path: '/v1/responses' };
    else if (url.pathname === '/openai/v1/chat/completions') target = { emu: chat, path: '/v1/chat/completions' };
    else if (url.pathname === '/openai/v1/responses') target = { emu: responses, path: '/v1/responses' };
    if (!target || req.method !== 'POST') return azureError(res, 404, '404', 'Resource not found');
    const reply = s.next(recorded);
    if (reply) target.emu.script(reply);
    // On the deployment path the deployment is the model, whatever the body names.
    const forwarded =
      target.model && typeof body === 'object' && body !== null ? { ...body, model: target.model } : body;
    const streamedChat = target.emu === chat && (forwarded as { stream?: unknown }).stream === true;
    await forward(target.emu.url.replace(/\/v1$/, '') + target.path, JSON.stringify(forwarded), res, streamedChat);
  }

  const listening = await listenLoopback(server);
  return {
    ...s,
    url: listening.url,
    close: async () => {
      await listening.close();
      await Promise.all([chat.close(), responses.close()]);
    },
  };
}

/** Relays the inner emulator's answer; a streamed chat answer opens with Azure's prompt-filter chunk. */
function forward(url: string, payload: string, res: ServerResponse, streamedChat: boolean): Promise<void> {
  return relayTo(url, payload, { 'content-type': 'application/json' }, res, (ur) => {
    const headers = { ...ur.headers, 'apim-request-id': crypto.randomUUID(), 'x-ms-region': 'Sweden Central' };
    res.writeHead(ur.statusCode ?? 502, headers);
    if (streamedChat && ur.statusCode === 200) res.write(`data: ${JSON.stringify(promptFilterChunk)}\n\n`);
  });
}

const promptFilterChunk = {
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [
    {
      prompt_index: 0,
      content_filter_results: {
        hate: { filtered: false, severity: 'safe' },
        self_harm: { filtered: false, severity: 'safe' },
        sexual: { filtered: false, severity: 'safe' },
        violence: { filtered: false, severity: 'safe' },
      },
    },
  ],
};

function azureError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}
