// Builds a small value that a JSON Schema accepts. The echo provider uses it to answer forced tool
// calls and JSON-schema output with schema-valid data, so clients can test those paths offline.

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export function sampleFromSchema(schema: unknown, depth = 0): unknown {
  if (!isSchema(schema) || depth > 12) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = schema[k];
    if (Array.isArray(alts) && alts.length > 0) return sampleFromSchema(alts[0], depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((s) => sampleFromSchema(s, depth + 1)).filter(isSchema));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (typeof type === 'string' ? type.toLowerCase() : isSchema(schema.properties) ? 'object' : 'string') {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isSchema(schema.properties) ? schema.properties : {};
      for (const [name, sub] of Object.entries(props)) out[name] = sampleFromSchema(sub, depth + 1);
      return out;
    }
    case 'array': {
      const n = typeof schema.minItems === 'number' ? schema.minItems : 1;
      return Array.from({ length: n }, () => sampleFromSchema(schema.items, depth + 1));
    }
    case 'integer':
      return typeof schema.minimum === 'number' ? Math.ceil(schema.minimum) : typeof schema.exclusiveMinimum === 'number' ? Math.floor(schema.exclusiveMinimum) + 1 : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (schema.format === 'date') return '2026-01-01';
      if (schema.format === 'email') return 'echo@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return 'echo'.padEnd(min, 'o');
    }
  }
}
