// What every matrix cell sends and scripts: one tool, one output schema, one image, and the
// scripted upstream replies. Kept in one place so drivers and inspectors agree on them.
import { Ajv } from 'ajv';

export type JsonSchema = Record<string, unknown>;
export type Json = Record<string, unknown>;

export const SYSTEM = 'You are terse.';

export const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
    required: ['city', 'days'],
  } as JsonSchema,
};

/** Tool arguments as the upstream streams them: uneven pieces, spacing a re-serializer would lose. */
export const toolArgs = '{"city": "Paris", "days": 3}';
export const toolArgPieces = ['{"city": ', '"Par', 'is", "da', 'ys": 3}'];
export const toolResultText = 'sunny, 21C';

/** A structured-output schema with the constraints a careless sample or translation breaks. */
export const forecastSchema: JsonSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2, maxLength: 40 },
    high: { type: 'number', minimum: -60, maximum: 60 },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    unit: { type: 'string', enum: ['C', 'F'] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
  },
  required: ['city', 'high', 'days', 'unit', 'tags'],
  additionalProperties: false,
};
export const forecastJson = '{"city":"Paris","high":21.5,"days":3,"unit":"C","tags":["sunny"]}';

/** A 1×1 PNG. */
export const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Reasoning settings every family can express identically under reasoning-map.ts: budget 2048 ⇔ effort low. */
export const reasoningBudget = 2048;
export const reasoningEffort = 'low';
export const thinkingText = 'Let me think about it.';
/** Per upstream, the opaque token its scripted reasoning carries (Gemini's is base64, as the real one). */
export const signatures = {
  anthropic: 'sig-anthropic-abc123==',
  'openai-responses': 'enc-openai-xyz789',
  gemini: 'c2lnLWdlbWluaS0x',
} as const;

const ajv = new Ajv({ strict: false, allErrors: true });
/** ajv's verdict on a JSON text against a schema: undefined when valid, else the errors. */
export function schemaErrors(schema: JsonSchema, text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  const validate = ajv.compile(schema);
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}
