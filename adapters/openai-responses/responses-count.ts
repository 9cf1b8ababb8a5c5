// Token counting in the Responses format: `POST /v1/responses/input_tokens` for clients, and
// `POST /responses/input_tokens` on Responses upstreams (docs/discovery.md).
import type { CountClient, CountWire } from '../shared/format-module.ts';
import { countBody, fixedPathCountWire } from '../shared/count-body.ts';

/** The fields of OpenAI's `POST /responses/input_tokens` (node_modules/openai/resources/responses/input-tokens.d.ts). */
const countFields = [
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'reasoning',
  'text',
  'truncation',
  'conversation',
  'previous_response_id',
  'parallel_tool_calls',
  'personality',
];

export const responsesCountWire: CountWire = fixedPathCountWire(
  '/responses/input_tokens',
  countFields,
  'input_tokens',
  ['openai-beta'],
);

/** `POST /v1/responses/input_tokens` → `{object: "response.input_tokens", input_tokens}`. */
export const responsesCountClient: CountClient = {
  generateBody: countBody,
  encode: (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }),
  // A chain or item references name state polygate keeps: the upstream is sent the conversation
  // they stand for, not the body as it came (the decoder notes both in the request's extensions).
  relayable: (request) => {
    const options = request.extensions['openai-responses'] ?? {};
    return options['previous_response_id'] === undefined && options['item_references'] === undefined;
  },
};
