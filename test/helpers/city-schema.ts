// The JSON schema of the one-argument weather/lookup tool the SDK tests hand their clients: a city
// name, strict (required, nothing else), as OpenAI's strict function calling wants it.
export const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
