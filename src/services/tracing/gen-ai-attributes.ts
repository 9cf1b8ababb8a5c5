// Attribute names: OpenTelemetry's GenAI semantic conventions (the `gen_ai.*` names of
// @opentelemetry/semantic-conventions/incubating, spelled out here because the incubating entry
// point is large), HTTP ones, and polygate's own under `polygate.*`.
import type { Attributes } from '@opentelemetry/api';
import type { ProviderType } from '../../infra/config/gateway-config.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';

/**
 * gen_ai.provider.name of each provider type: the convention's well-known names, else polygate's
 * own. A Record, so a new provider type fails the build until it is named here.
 */
const providerNames: Readonly<Record<ProviderType, string>> = {
  openai: 'openai',
  'azure-openai': 'azure.ai.openai',
  bedrock: 'aws.bedrock',
  vertex: 'gcp.vertex_ai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  echo: 'polygate.echo',
  'local-speech': 'polygate.local_speech',
  tune: 'polygate.tune',
  'sandbox-tune': 'polygate.tune',
};

/** gen_ai.provider.name of a provider type; `polygate` when no provider served. */
export const genAiProviderName = (type: ProviderType | undefined): string =>
  type === undefined ? 'polygate' : providerNames[type];

/** What the client asked for (never content: that is `contentAttributes`, only with log.content). */
export function requestAttributes(r: ChatRequest): Attributes {
  const a: Attributes = { 'gen_ai.request.model': r.model, 'polygate.stream': r.stream };
  if (r.maxTokens !== undefined) a['gen_ai.request.max_tokens'] = r.maxTokens;
  if (r.sampling.temperature !== undefined) a['gen_ai.request.temperature'] = r.sampling.temperature;
  if (r.sampling.topP !== undefined) a['gen_ai.request.top_p'] = r.sampling.topP;
  if (r.sampling.stop?.length) a['gen_ai.request.stop_sequences'] = r.sampling.stop;
  if (r.tools.length > 0) a['polygate.request.tools'] = r.tools.length;
  return a;
}

/** The conversation, as the convention's opt-in content attributes (JSON). */
export function contentAttributes(r: ChatRequest): Attributes {
  return {
    'gen_ai.input.messages': JSON.stringify(r.messages),
    ...(r.system.length > 0 ? { 'gen_ai.system_instructions': JSON.stringify(r.system) } : {}),
  };
}
