// Token counting in the Messages format: `POST /v1/messages/count_tokens` for clients, and the
// same endpoint on Messages upstreams (docs/discovery.md).
import type { CountClient, CountWire } from '../shared/format-module.ts';
import { countBody, fixedPathCountWire } from '../shared/count-body.ts';

/**
 * The fields Anthropic's count_tokens takes (MessageCountTokensParams in
 * node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts, and its beta's); it refuses
 * generation-only ones such as max_tokens.
 */
const countFields = [
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'cache_control',
  'speed',
  'context_management',
  'mcp_servers',
];

export const messagesCountWire: CountWire = fixedPathCountWire(
  '/v1/messages/count_tokens',
  countFields,
  'input_tokens',
  ['anthropic-version', 'anthropic-beta'],
);

/** `POST /v1/messages/count_tokens` → `{input_tokens}` (MessageTokensCount). */
export const messagesCountClient: CountClient = {
  generateBody: countBody,
  encode: (tokens) => ({ input_tokens: tokens }),
  stubsMaxTokens: true,
};
