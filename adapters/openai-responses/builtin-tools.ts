// Hosted tools of the Responses API → IR BuiltinTool (kind + the original object as `options`),
// validated as the API reference and the Limits table say, and echoed with the API's defaults
// filled in. https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
// https://platform.openai.com/docs/guides/tools-file-search, …/tools-web-search, …/tools-computer-use
import type { BuiltinTool } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, isObject, obj, str, type Json } from '../shared/narrow.ts';
import { absent, integerIn, missing, numberIn, required } from './responses-validate.ts';
import { assertNever } from '../../src/ir/stream-event.ts';

export const builtinKinds = {
  file_search: 'file-search',
  web_search_preview: 'web-search',
  web_search_preview_2025_03_11: 'web-search',
  web_search: 'web-search',
  web_search_2025_08_26: 'web-search',
  computer_use_preview: 'computer-use',
  code_interpreter: 'code-execution',
} as const satisfies Record<string, BuiltinTool['kind']>;

export type BuiltinWireType = keyof typeof builtinKinds;

export const isBuiltinWireType = (t: unknown): t is BuiltinWireType =>
  typeof t === 'string' && Object.hasOwn(builtinKinds, t);

/** Validates one hosted tool definition; `p` is its param path (`tools[2]`). */
export function decodeBuiltinTool(t: Json, type: BuiltinWireType, p: string): BuiltinTool {
  switch (type) {
    case 'file_search':
      validateFileSearch(t, p);
      break;
    case 'web_search_preview':
    case 'web_search_preview_2025_03_11':
    case 'web_search':
    case 'web_search_2025_08_26':
      validateWebSearch(t, p);
      break;
    case 'computer_use_preview':
      required(t.display_width, `${p}.display_width`, (v, f) => integerIn(v, f, 1));
      required(t.display_height, `${p}.display_height`, (v, f) => integerIn(v, f, 1));
      // Settings of a hosted tool are the upstream's to read (they travel in `options`): a word
      // newer than polygate (an environment, a comparison, a context size) is checked only for its
      // type, and the upstream takes it or says why not (docs/open-world.md).
      required(t.environment, `${p}.environment`, str);
      break;
    case 'code_interpreter':
      if (absent(t.container)) throw missing(`${p}.container`);
      if (typeof t.container !== 'string') obj(t.container, `${p}.container`);
      break;
    default:
      return assertNever(type, 'tool type');
  }
  return { type: 'builtin', kind: builtinKinds[type], name: type, options: { ...t } };
}

function validateFileSearch(t: Json, p: string): void {
  const ids = required(t.vector_store_ids, `${p}.vector_store_ids`, arr);
  ids.forEach((id, k) => str(id, `${p}.vector_store_ids[${k}]`));
  if (!absent(t.max_num_results)) integerIn(t.max_num_results, `${p}.max_num_results`, 1, 50);
  if (!absent(t.ranking_options)) {
    const r = obj(t.ranking_options, `${p}.ranking_options`);
    if (!absent(r.ranker)) str(r.ranker, `${p}.ranking_options.ranker`);
    if (!absent(r.score_threshold)) numberIn(r.score_threshold, `${p}.ranking_options.score_threshold`, 0, 1);
  }
  if (!absent(t.filters)) validateFilter(t.filters, `${p}.filters`);
}

/** A comparison filter {key, type, value} or a compound filter {type: and|or, filters}. */
function validateFilter(v: unknown, p: string): void {
  const f = obj(v, p);
  if (f.type === 'and' || f.type === 'or') {
    required(f.filters, `${p}.filters`, arr).forEach((sub, k) => validateFilter(sub, `${p}.filters[${k}]`));
    return;
  }
  required(f.type, `${p}.type`, str);
  required(f.key, `${p}.key`, str);
  if (absent(f.value)) throw missing(`${p}.value`);
  const ok = (x: unknown): boolean => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean';
  if (!ok(f.value) && !(Array.isArray(f.value) && f.value.every(ok))) {
    throw invalid(`${p}.value`, `Invalid type for '${p}.value': expected a string, number or boolean.`);
  }
}

function validateWebSearch(t: Json, p: string): void {
  if (!absent(t.search_context_size)) str(t.search_context_size, `${p}.search_context_size`);
  if (!absent(t.user_location)) {
    const loc = obj(t.user_location, `${p}.user_location`);
    required(loc.type, `${p}.user_location.type`, str);
    for (const k of ['city', 'region', 'timezone'] as const)
      if (!absent(loc[k])) str(loc[k], `${p}.user_location.${k}`);
    if (!absent(loc.country)) {
      const c = str(loc.country, `${p}.user_location.country`);
      if (!/^[A-Za-z]{2}$/.test(c))
        throw invalid(
          `${p}.user_location.country`,
          `Invalid '${p}.user_location.country': expected a two-letter ISO country code.`,
        );
    }
  }
  if (!absent(t.domains)) arr(t.domains, `${p}.domains`).forEach((d, k) => str(d, `${p}.domains[${k}]`));
}

/**
 * A hosted tool as the response object echoes it, with the API's defaults filled in (the spec's
 * table: "tool definitions are echoed with defaults filled in, e.g. search_context_size,
 * ranking_options").
 */
export function echoBuiltinTool(options: Record<string, unknown>): Json {
  switch (options.type) {
    case 'file_search': {
      const ranking = isObject(options.ranking_options) ? options.ranking_options : {};
      return {
        filters: null,
        max_num_results: 20,
        ...options,
        ranking_options: { ranker: 'auto', score_threshold: 0, ...ranking },
      };
    }
    case 'web_search_preview':
    case 'web_search_preview_2025_03_11':
    case 'web_search':
    case 'web_search_2025_08_26': {
      const loc = isObject(options.user_location)
        ? { type: 'approximate', city: null, country: null, region: null, timezone: null, ...options.user_location }
        : null;
      return { search_context_size: 'medium', ...options, user_location: loc };
    }
    default:
      return { ...options };
  }
}
