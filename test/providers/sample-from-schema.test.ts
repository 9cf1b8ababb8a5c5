// The echo provider's answers to forced tool calls and JSON-schema output must be valid against
// the schema the client sent: ajv is the judge, over the keywords structured outputs use.
import t from 'tap';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { sampleFromSchema } from '../../src/services/providers/sample-from-schema.ts';

const ajv = new Ajv({ strict: false });
addFormats.default(ajv);

const schemas: Array<[string, Record<string, unknown>]> = [
  [
    'plain object',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  ],
  [
    'bounds below 1',
    {
      type: 'object',
      properties: {
        n: { type: 'integer', maximum: 0 },
        x: { type: 'number', exclusiveMaximum: 0.5 },
        neg: { type: 'number', minimum: -10, maximum: -5 },
      },
    },
  ],
  [
    'exclusive minimum',
    {
      type: 'object',
      properties: { n: { type: 'integer', exclusiveMinimum: 7 }, x: { type: 'number', exclusiveMinimum: 2.5 } },
    },
  ],
  [
    'multipleOf',
    {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 3, multipleOf: 5 },
        x: { type: 'number', multipleOf: 0.25, minimum: 1.1 },
      },
    },
  ],
  [
    'string lengths',
    {
      type: 'object',
      properties: {
        short: { type: 'string', maxLength: 2 },
        long: { type: 'string', minLength: 10 },
        exact: { type: 'string', minLength: 3, maxLength: 3 },
      },
    },
  ],
  [
    'formats',
    {
      type: 'object',
      properties: {
        d: { type: 'string', format: 'date' },
        dt: { type: 'string', format: 'date-time' },
        e: { type: 'string', format: 'email' },
        u: { type: 'string', format: 'uri' },
        id: { type: 'string', format: 'uuid' },
      },
    },
  ],
  [
    'item counts',
    {
      type: 'object',
      properties: {
        none: { type: 'array', items: { type: 'string' }, maxItems: 0 },
        three: { type: 'array', items: { type: 'integer' }, minItems: 3 },
      },
    },
  ],
  [
    'enum, const, nullable type',
    { type: 'object', properties: { e: { enum: ['x', 'y'] }, c: { const: 42 }, n: { type: ['string', 'null'] } } },
  ],
  [
    'anyOf preferring a non-null branch',
    {
      type: 'object',
      properties: {
        v: { anyOf: [{ type: 'null' }, { type: 'object', properties: { k: { type: 'boolean' } }, required: ['k'] }] },
      },
      required: ['v'],
    },
  ],
  [
    'local $ref into $defs',
    {
      type: 'object',
      properties: { p: { $ref: '#/$defs/point' } },
      required: ['p'],
      $defs: {
        point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
      },
    },
  ],
  [
    'allOf',
    {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] },
      ],
    },
  ],
];

for (const [name, schema] of schemas) {
  t.test(name, async (t) => {
    const value = sampleFromSchema(schema);
    const validate = ajv.compile(schema);
    t.ok(validate(value), `${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
  });
}
