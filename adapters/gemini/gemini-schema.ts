// Gemini's `Schema` (an OpenAPI 3.0 subset with upper-case types and `nullable`) ⇄ JSON Schema,
// the IR's schema language (https://ai.google.dev/api/caching#Schema). Requests to Gemini use
// `parametersJsonSchema` / `responseJsonSchema`, so only the decode direction is general; the
// encode direction exists for `text/x.enum`, which takes a `responseSchema` string enum.
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, obj, str, type Json } from '../shared/narrow.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import { noteInto, openEnum } from '../shared/open-enum.ts';
import { intLike, noteUnknown, pick } from './gemini-fields.ts';

const schemaTypes = ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'] as const;
const schemaFields = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'example',
  'default',
  'items',
  'properties',
  'required',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'pattern',
  'anyOf',
  'propertyOrdering',
] as const;
const intFields = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'] as const;

/**
 * Converts and validates one Schema. Types are matched case-insensitively because the official
 * SDK forwards lower-case types it got from JSON-Schema-minded callers. `propertyOrdering` is a
 * generation hint with no JSON Schema keyword; JSON object key order already carries it.
 */
export function jsonSchemaOfGeminiSchema(v: unknown, at: string, dropped: DroppedField[]): Json {
  const s = obj(v, at);
  noteUnknown(s, schemaFields, at, dropped);
  const out: Json = {};
  const type = pick(s, 'type', at);
  let t: string | undefined;
  if (type.value !== undefined) {
    // A type newer than polygate constrains nothing polygate can say: the schema is left without
    // a type (any value), warned.
    const upper = str(type.value, type.path).toUpperCase();
    const known = openEnum(upper, schemaTypes, type.path, noteInto(dropped));
    if (known !== undefined && known !== 'TYPE_UNSPECIFIED') t = known.toLowerCase();
  }
  const nullable = pick(s, 'nullable', at);
  if (nullable.value !== undefined && typeof nullable.value !== 'boolean')
    throw invalid(nullable.path, `${nullable.path}: expected a boolean`);
  const isNullable = nullable.value === true;
  if (t !== undefined) out.type = isNullable && t !== 'null' ? [t, 'null'] : t;
  for (const k of ['format', 'title', 'description', 'pattern'] as const) {
    const f = pick(s, k, at);
    if (f.value !== undefined) out[k] = str(f.value, f.path);
  }
  const en = pick(s, 'enum', at);
  if (en.value !== undefined) {
    const values = arr(en.value, en.path);
    out.enum = isNullable && !values.includes(null) ? [...values, null] : values;
  }
  const example = pick(s, 'example', at);
  if (example.value !== undefined) out.examples = [example.value];
  const def = pick(s, 'default', at);
  if (def.value !== undefined) out.default = def.value;
  for (const k of ['minimum', 'maximum'] as const) {
    const f = pick(s, k, at);
    if (f.value !== undefined) {
      if (typeof f.value !== 'number') throw invalid(f.path, `${f.path}: expected a number`);
      out[k] = f.value;
    }
  }
  for (const k of intFields) {
    const f = pick(s, k, at);
    if (f.value !== undefined) out[k] = intLike(f.value, f.path);
  }
  const items = pick(s, 'items', at);
  if (items.value !== undefined) out.items = jsonSchemaOfGeminiSchema(items.value, items.path, dropped);
  const props = pick(s, 'properties', at);
  if (props.value !== undefined) {
    const map = obj(props.value, props.path);
    const converted: Json = {};
    for (const [name, sub] of Object.entries(map))
      converted[name] = jsonSchemaOfGeminiSchema(sub, `${props.path}.${name}`, dropped);
    out.properties = converted;
  }
  const req = pick(s, 'required', at);
  if (req.value !== undefined) out.required = arr(req.value, req.path).map((r, i) => str(r, `${req.path}[${i}]`));
  const anyOf = pick(s, 'anyOf', at);
  if (anyOf.value !== undefined) {
    const subs = arr(anyOf.value, anyOf.path).map((sub, i) =>
      jsonSchemaOfGeminiSchema(sub, `${anyOf.path}[${i}]`, dropped),
    );
    out.anyOf = isNullable && t === undefined ? [...subs, { type: 'null' }] : subs;
  }
  const ordering = pick(s, 'propertyOrdering', at);
  if (ordering.value !== undefined) arr(ordering.value, ordering.path);
  return out;
}

/** The values of a JSON Schema string enum (`{type: 'string', enum: [...]}`), or undefined. */
export function stringEnumOf(schema: Json): string[] | undefined {
  if (schema.type !== 'string' || !Array.isArray(schema.enum)) return undefined;
  return schema.enum.every((e) => typeof e === 'string') ? (schema.enum as string[]) : undefined;
}

/** `text/x.enum` output needs a Gemini Schema; only a string enum is meaningful there. */
export function geminiEnumSchema(values: string[]): Json {
  return { type: 'STRING', enum: values };
}

/**
 * Keywords Gemini refuses even on its JSON Schema path (`parametersJsonSchema`,
 * `responseJsonSchema`) with "Invalid JSON payload received. Unknown name …": `$schema` (every
 * MCP server and zod-to-json-schema emit it), `$comment`, and VS Code's `enumDescriptions` /
 * `markdownDescription`. Gemini's supported list (`$id`, `$defs`, `$ref`, `$anchor`, type, format,
 * title, description, enum, items, prefixItems, min/maxItems, minimum, maximum, anyOf, oneOf,
 * properties, additionalProperties, required, propertyOrdering) has none of them, and none changes
 * what a valid argument is, so they are removed rather than reported.
 */
const refusedKeywords = new Set([
  '$schema',
  '$comment',
  'enumDescriptions',
  'markdownDescription',
  'markdownEnumDescriptions',
  'deprecationMessage',
]);
/** Keywords whose value is a map of names to schemas (the names themselves are data, not keywords). */
const schemaMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Deeper than any real tool schema; bounds the walk on hostile input. */
const maxDepth = 64;

/** A copy of a JSON Schema without the keywords Gemini refuses, at any depth. */
export function geminiJsonSchema(schema: Json): Json {
  const walk = (v: unknown, depth: number, isMap: boolean): unknown => {
    if (depth > maxDepth) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1, false));
    if (typeof v !== 'object' || v === null) return v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      if (!isMap && refusedKeywords.has(k)) continue;
      // `enum`, `const`, `default` and `examples` hold data, never schemas: copied as they are.
      out[k] =
        !isMap && (k === 'enum' || k === 'const' || k === 'default' || k === 'examples')
          ? x
          : walk(x, depth + 1, !isMap && schemaMaps.has(k));
    }
    return out;
  };
  return walk(schema, 0, false) as Json;
}
