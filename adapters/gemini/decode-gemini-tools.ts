// Client `tools` and `toolConfig` → IR tools and tool choice
// (https://ai.google.dev/api/caching#Tool, https://ai.google.dev/api/caching#ToolConfig).
import type { BuiltinTool, FunctionTool, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import { arr, obj, str, type Json } from '../shared/narrow.ts';
import { noteInto, openEnum } from '../shared/open-enum.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import { camelOf, noteUnknown, pick, unknownKeys } from './gemini-fields.ts';
import { jsonSchemaOfGeminiSchema } from './gemini-schema.ts';

/** Same rule as the API: a letter or underscore, then letters, digits, `_ . : -`; at most 128. */
const functionName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;
const modes = ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'] as const;

/**
 * Gemini's own server-side tools, by wire name. A decoded one keeps that name and its settings
 * object as `options` (as every format's decoder does), so a Gemini upstream gets exactly what
 * the client sent; other upstreams see the IR kind, and settings they lack are reported.
 */
export const geminiBuiltinKinds: Record<string, BuiltinTool['kind']> = {
  codeExecution: 'code-execution',
  googleSearch: 'web-search',
  googleSearchRetrieval: 'web-search',
  computerUse: 'computer-use',
  fileSearch: 'file-search',
};

export type DecodedTools = {
  tools: Tool[];
  /** Tools the IR has no kind for (urlContext, googleMaps…), by `tools.<name>`: relayed to Gemini only. */
  extensions: Record<string, unknown>;
  /** FunctionDeclaration.response / responseJsonSchema by function name: relayed to Gemini only. */
  responseSchemas: Record<string, Json>;
};

export function decodeTools(v: unknown, path: string, dropped: DroppedField[]): DecodedTools {
  const out: DecodedTools = { tools: [], extensions: {}, responseSchemas: {} };
  arr(v, path).forEach((t, i) => {
    const at = `${path}[${i}]`;
    const tool = obj(t, at);
    for (const [key, value] of Object.entries(tool)) {
      const camel = camelOf(key);
      const kp = `${at}.${key}`;
      if (camel === 'functionDeclarations') {
        arr(value, kp).forEach((d, k) =>
          out.tools.push(decodeDeclaration(d, `${kp}[${k}]`, out.responseSchemas, dropped)),
        );
      } else if (Object.hasOwn(geminiBuiltinKinds, camel)) {
        out.tools.push({ type: 'builtin', kind: geminiBuiltinKinds[camel], name: camel, options: obj(value, kp) });
      } else {
        out.extensions[`tools.${camel}`] = obj(value, kp);
      }
    }
  });
  return out;
}

function decodeDeclaration(
  v: unknown,
  at: string,
  responseSchemas: Record<string, Json>,
  dropped: DroppedField[],
): FunctionTool {
  const d = obj(v, at);
  // `behavior` (Live API only) and fields newer than this adapter: noted, never an error.
  noteUnknown(
    d,
    ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema'],
    at,
    dropped,
  );
  const n = pick(d, 'name', at);
  if (n.value === undefined || n.value === '') throw invalid(n.path, `${n.path}: is required`);
  const name = str(n.value, n.path);
  if (!functionName.test(name)) {
    throw invalid(
      n.path,
      `${n.path}: must start with a letter or underscore and contain only letters, digits, '_', '.', ':' or '-' (at most 128 characters)`,
    );
  }
  const tool: FunctionTool = { type: 'function', name, parameters: { type: 'object', properties: {} } };
  const desc = pick(d, 'description', at);
  if (desc.value !== undefined) tool.description = str(desc.value, desc.path);
  const params = pick(d, 'parameters', at);
  const json = pick(d, 'parametersJsonSchema', at);
  if (params.value !== undefined && json.value !== undefined)
    throw invalid(json.path, `${json.path}: parameters and parametersJsonSchema are mutually exclusive`);
  if (params.value !== undefined) tool.parameters = jsonSchemaOfGeminiSchema(params.value, params.path, dropped);
  if (json.value !== undefined) tool.parameters = obj(json.value, json.path);
  const response = pick(d, 'response', at);
  const responseJson = pick(d, 'responseJsonSchema', at);
  if (response.value !== undefined && responseJson.value !== undefined)
    throw invalid(responseJson.path, `${responseJson.path}: response and responseJsonSchema are mutually exclusive`);
  if (response.value !== undefined) {
    jsonSchemaOfGeminiSchema(response.value, response.path, dropped);
    responseSchemas[name] = { response: response.value };
  }
  if (responseJson.value !== undefined)
    responseSchemas[name] = { responseJsonSchema: obj(responseJson.value, responseJson.path) };
  return tool;
}

export type DecodedToolConfig = { toolChoice?: ToolChoice; extensions: Record<string, unknown> };

/**
 * FunctionCallingConfig: AUTO / MODE_UNSPECIFIED → auto, NONE → none, ANY → required (one
 * allowed name → that tool), VALIDATED (calls or text, names constrained) → allowed/auto.
 * `allowedFunctionNames` is only meaningful with ANY or VALIDATED and must name declared functions.
 */
export function decodeToolConfig(v: unknown, path: string, tools: Tool[], dropped: DroppedField[]): DecodedToolConfig {
  const tc = obj(v, path);
  const out: DecodedToolConfig = { extensions: {} };
  for (const { camel, key } of unknownKeys(tc, ['functionCallingConfig']))
    out.extensions[`toolConfig.${camel}`] = tc[key];
  const fcc = pick(tc, 'functionCallingConfig', path);
  if (fcc.value === undefined) return out;
  const cfg = obj(fcc.value, fcc.path);
  // `streamFunctionCallArguments` and newer settings: noted (a non-Gemini upstream has no such knob).
  noteUnknown(cfg, ['mode', 'allowedFunctionNames'], fcc.path, dropped);
  const m = pick(cfg, 'mode', fcc.path);
  const an = pick(cfg, 'allowedFunctionNames', fcc.path);
  // A mode newer than polygate: with allowed names it still constrains the calls (read as
  // VALIDATED: those tools or text), without them the model chooses (AUTO); warned.
  const mode =
    m.value === undefined
      ? 'MODE_UNSPECIFIED'
      : (openEnum(m.value, modes, m.path, noteInto(dropped), () => (an.value === undefined ? 'AUTO' : 'VALIDATED')) ??
        'AUTO');
  const declared = new Set(tools.filter((t) => t.type === 'function').map((t) => t.name));
  const names =
    an.value === undefined
      ? undefined
      : arr(an.value, an.path).map((x, i) => {
          const name = str(x, `${an.path}[${i}]`);
          if (!declared.has(name))
            throw invalid(`${an.path}[${i}]`, `${an.path}[${i}]: '${name}' is not a declared function`);
          return name;
        });
  if (names !== undefined && mode !== 'ANY' && mode !== 'VALIDATED') {
    throw invalid(an.path, `${an.path}: may only be set when mode is ANY or VALIDATED`);
  }
  out.toolChoice = choiceOfMode(mode, names);
  return out;
}

/** The IR tool choice a function calling mode means, with the functions it allows (if it names any). */
function choiceOfMode(mode: (typeof modes)[number], names: string[] | undefined): ToolChoice {
  switch (mode) {
    case 'MODE_UNSPECIFIED':
    case 'AUTO':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      if (names === undefined || names.length === 0) return { type: 'required' };
      return names.length === 1 ? { type: 'tool', name: names[0] } : { type: 'allowed', names, mode: 'required' };
    case 'VALIDATED':
      return names === undefined || names.length === 0 ? { type: 'auto' } : { type: 'allowed', names, mode: 'auto' };
    default:
      return assertNever(mode, 'function calling mode');
  }
}
