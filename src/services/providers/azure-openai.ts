// Azure OpenAI's envelope around the OpenAI formats (docs/providers.md, "Azure OpenAI"): the same
// Chat Completions and Responses bodies under Azure's own paths, with the key in an `api-key`
// header or an Entra ID bearer token. What the body holds is the OpenAI codecs' business.
import type { ChatUpstreamCodec } from '../../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';

/**
 * The upstream path of an OpenAI path on Azure. With `api_version` the deployment paths: Chat
 * Completions names the deployment (the route's model) in the path, Responses in the body, and
 * both carry `?api-version=`. Without it the v1 API (`/openai/v1/...`), which takes no version.
 */
export function azurePath(path: string, deployment: string, apiVersion: string | undefined): string {
  if (apiVersion === undefined) return `/openai/v1${path}`;
  const [bare, query] = path.split('?', 2);
  const version = `api-version=${encodeURIComponent(apiVersion)}`;
  const withQuery = (p: string): string => `${p}?${query ? `${query}&` : ''}${version}`;
  if (bare === '/chat/completions')
    return withQuery(`/openai/deployments/${encodeURIComponent(deployment)}/chat/completions`);
  return withQuery(`/openai${bare}`);
}

/**
 * `api-key: KEY` (Azure's key header) or `Authorization: Bearer TOKEN` (an Entra ID token put in
 * the config); none for `auth: entra`, whose tokens polygate fetches per call (entra-token.ts).
 */
export function azureAuthHeaders(cfg: ProviderConfig): Record<string, string> {
  if (cfg.auth === 'entra') return {};
  return cfg.auth === 'bearer' ? { authorization: `Bearer ${cfg.api_key ?? ''}` } : { 'api-key': cfg.api_key ?? '' };
}

/** How a provider's upstream paths are written: Azure's envelope, or as the format names them. */
export function upstreamPathOf(cfg: ProviderConfig): (path: string, model: string) => string {
  if (cfg.type !== 'azure-openai') return (path) => path;
  return (path, model) => azurePath(path, model, cfg.api_version);
}

/**
 * Azure opens a streamed chat answer with a chunk of `prompt_filter_results` and no choices, whose
 * empty `id` and `model` would otherwise be taken as the stream's; the codec skips that chunk.
 */
export function azureChatCodec(codec: ChatUpstreamCodec): ChatUpstreamCodec {
  return {
    ...codec,
    createStreamDecoder() {
      const inner = codec.createStreamDecoder();
      return {
        push: (frame) => (isPromptFilterChunk(frame.data) ? [] : inner.push(frame)),
        end: () => inner.end(),
      };
    },
  };
}

function isPromptFilterChunk(data: string): boolean {
  if (!data.includes('"prompt_filter_results"')) return false;
  try {
    const c = JSON.parse(data) as { choices?: unknown; usage?: unknown };
    return Array.isArray(c.choices) && c.choices.length === 0 && !c.usage;
  } catch {
    return false;
  }
}
