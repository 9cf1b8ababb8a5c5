// Builds a small value that a JSON Schema accepts. The echo provider uses it to answer forced tool
// calls and JSON-schema output with schema-valid data, so clients can test those paths offline.
// It honours the keywords structured-output schemas use (types, enum/const, bounds, lengths,
// item counts, formats, anyOf/oneOf/allOf, local $ref); `pattern` is not searched for a match.

type Schema = Record<string, unknown>;

/**
 * What one sample may cost: a schema of 237 bytes (three nested arrays with `minItems: 1000`)
 * asks for a billion values, and `minLength: 1e9` for a gigabyte string. Past either bound the
 * sampler gives up with SampleTooLarge (the echo provider answers 400) rather than return a value
 * the schema would refuse.
 */
export const sampleBounds = { maxValues: 10_000, maxChars: 1024 * 1024 };

export class SampleTooLarge extends Error {
  override name = 'SampleTooLarge';
}

type Budget = { values: number; chars: number };

function spend(budget: Budget, values: number, chars: number): void {
  budget.values += values;
  budget.chars += chars;
  if (budget.values > sampleBounds.maxValues || budget.chars > sampleBounds.maxChars) {
    throw new SampleTooLarge(
      `a value valid for this schema is larger than echo generates (over ${sampleBounds.maxValues} values or ${sampleBounds.maxChars} characters)`,
    );
  }
}
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const numberOr = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Throws SampleTooLarge when the smallest value the schema allows exceeds `sampleBounds`. */
export function sampleFromSchema(schema: unknown): unknown {
  return sample(schema, schema, 0, { values: 0, chars: 0 });
}

function sample(schema: unknown, root: unknown, depth: number, budget: Budget): unknown {
  spend(budget, 1, 0);
  if (!isSchema(schema) || depth > 12) return null;
  const ref = typeof schema.$ref === 'string' ? resolveRef(root, schema.$ref) : undefined;
  if (ref) return sample(ref, root, depth + 1, budget);
  // Values copied from the schema are client input the body limits already bounded.
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = schema[k];
    if (Array.isArray(alts) && alts.length > 0)
      return sample(alts.find((a) => !(isSchema(a) && a.type === 'null')) ?? alts[0], root, depth + 1, budget);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((s) => sample(s, root, depth + 1, budget)).filter(isSchema));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (typeof type === 'string' ? type.toLowerCase() : isSchema(schema.properties) ? 'object' : 'string') {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isSchema(schema.properties) ? schema.properties : {};
      for (const [name, sub] of Object.entries(props)) {
        spend(budget, 0, name.length);
        out[name] = sample(sub, root, depth + 1, budget);
      }
      return out;
    }
    case 'array': {
      const min = numberOr(schema.minItems) ?? 1;
      const n = Math.max(0, Math.min(min, numberOr(schema.maxItems) ?? min));
      // Each item spends from the budget, so a huge minItems fails after maxValues items, not after allocating n.
      const items: unknown[] = [];
      for (let i = 0; i < n; i++) items.push(sample(schema.items, root, depth + 1, budget));
      return items;
    }
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      const min = numberOr(schema.minLength) ?? 0;
      spend(budget, 0, Math.max(min, 4));
      return sampleString(schema);
    }
  }
}

/** `#/$defs/name` (or any local JSON pointer) inside the root schema. */
function resolveRef(root: unknown, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((s) => s !== '')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    at = isSchema(at) ? at[key] : undefined;
  }
  return isSchema(at) ? at : undefined;
}

/** 1 when the bounds allow it, else the nearest allowed value (a multiple of multipleOf if set). */
function sampleNumber(s: Schema, integer: boolean): number {
  const step = numberOr(s.multipleOf) ?? (integer ? 1 : undefined);
  const exMin = numberOr(s.exclusiveMinimum);
  const exMax = numberOr(s.exclusiveMaximum);
  let lo = numberOr(s.minimum) ?? -Infinity;
  let hi = numberOr(s.maximum) ?? Infinity;
  if (exMin !== undefined) lo = Math.max(lo, exMin + (step ?? Math.max(Math.abs(exMin) * 1e-6, 1e-6)));
  if (exMax !== undefined) hi = Math.min(hi, exMax - (step ?? Math.max(Math.abs(exMax) * 1e-6, 1e-6)));
  let v = Math.min(Math.max(1, lo), hi);
  if (step !== undefined) {
    const up = Math.ceil(v / step) * step;
    v = up <= hi ? up : Math.floor(v / step) * step;
  }
  return v;
}

function sampleString(s: Schema): string {
  if (s.format === 'date-time') return '2026-01-01T00:00:00Z';
  if (s.format === 'date') return '2026-01-01';
  if (s.format === 'time') return '00:00:00Z';
  if (s.format === 'email') return 'echo@example.com';
  if (s.format === 'uri' || s.format === 'url') return 'https://example.com/';
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  const min = numberOr(s.minLength) ?? 0;
  const max = numberOr(s.maxLength) ?? Infinity;
  return 'echo'.padEnd(min, 'o').slice(0, max);
}
