// Attribute names: OpenTelemetry's GenAI semantic conventions (the `gen_ai.*` names of
// @opentelemetry/semantic-conventions/incubating, spelled out here because the incubating entry
// point is large), HTTP ones, and polygate's own under `polygate.*`.
import type { Attributes } from '@opentelemetry/api';
import type { ProviderType } from '../../infra/config/gateway-config.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';

/** gen_ai.provider.name values: the convention's well-known names, else polygate's own. */
export function genAiProviderName(type: ProviderType | undefined): string {
  switch (type) {
    case 'openai':
      return 'openai';
    case 'azure-openai':
      return 'azure.ai.openai';
    case 'bedrock':
      return 'aws.bedrock';
    case 'vertex':
      return 'gcp.vertex_ai';
    case 'anthropic':
      return 'anthropic';
    case 'gemini':
      return 'gcp.gemini';
    case 'echo':
      return 'polygate.echo';
    case 'local-speech':
      return 'polygate.local_speech';
    case 'tune':
    case 'sandbox-tune':
      return 'polygate.tune';
    case undefined:
      return 'polygate';
    default: {
      const never: never = type;
      return never;
    }
  }
}

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
