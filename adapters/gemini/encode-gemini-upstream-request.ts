// IR ChatRequest → GenerateContentRequest for a Gemini upstream
// (https://ai.google.dev/api/generate-content#request-body). The provider adds x-goog-api-key.
import type { ChatRequest, Tool, ToolChoice } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { UpstreamHttpRequest, WarningSink } from '../shared/chat-adapter.ts';
import { isClientSideExtension } from '../shared/client-side-extensions.ts';
import { forcedBuiltinTool } from '../shared/forced-builtin-tool.ts';
import { dropForeignExtensions, ownExtensions } from '../shared/format-extensions.ts';
import { outputChangingExtension } from '../shared/output-changing-extensions.ts';
import { dropOpenAIKnobs } from '../shared/openai-knobs.ts';
import { encodeServiceTier } from '../shared/service-tier.ts';
import { isObject, type Json } from '../shared/narrow.ts';
import { budgetOfEffort, nearestEffort } from '../shared/reasoning-map.ts';
import { copySampling, type SamplingNames } from '../shared/sampling-names.ts';
import { geminiBuiltinKinds } from './decode-gemini-tools.ts';
import { encodeContents, onceWarner } from './encode-gemini-contents.ts';
import { geminiEnumSchema, geminiJsonSchema, stringEnumOf } from './gemini-schema.ts';

/** Extensions a Gemini client brought that go back into the same place on the way out. */
const topLevelExtensions = ['safetySettings', 'cachedContent', 'labels', 'serviceTier', 'store'];
const generationExtensions = ['responseModalities', 'speechConfig', 'mediaResolution', 'enableEnhancedCivicAnswers'];
/** Extensions this encoder consumes itself while mapping IR fields. */
const consumed = ['responseLogprobs', 'logprobs', 'functionResponseSchemas'];

export function encodeGeminiUpstreamRequest(
  req: ChatRequest,
  upstreamModel: string,
  warnSink: WarningSink,
): UpstreamHttpRequest {
  const warn = onceWarner(warnSink);
  // A route may name the model in its long form (`models/{model}`); the path wants the short one.
  const model = encodeURIComponent(upstreamModel.replace(/^models\//, ''));
  const body: Json = {};
  body.contents = encodeContents(req.messages, warn);
  if (req.system.length > 0) {
    if (req.system.some((t) => t.cache !== undefined))
      warn('cache', 'gemini caches prompts implicitly; cache hints were dropped');
    body.systemInstruction = { parts: req.system.map((t) => ({ text: t.text })) };
  }
  const tools = encodeTools(req, warn);
  if (tools.length > 0) body.tools = tools;
  const toolConfig = encodeToolConfig(req.toolChoice, req.tools);
  const gen = encodeGenerationConfig(req);
  dropForeignExtensions(req, 'gemini', warn);
  relayExtensions(ownExtensions(req, 'gemini'), body, gen, tools, toolConfig, warn);
  const tier = encodeServiceTier(req.serviceTier, 'gemini', 'serviceTier', warn);
  if (tier !== undefined) body.serviceTier = tier;
  if (req.verbosity !== undefined) warn('verbosity', 'gemini has no verbosity setting; it was dropped');
  dropOpenAIKnobs(req, 'gemini', warn);
  if (tools.length > 0 && body.tools === undefined) body.tools = tools;
  if (Object.keys(toolConfig).length > 0) body.toolConfig = toolConfig;
  if (Object.keys(gen).length > 0) body.generationConfig = gen;
  if (req.parallelToolCalls === false)
    warn('parallelToolCalls', 'gemini cannot forbid parallel function calls; the setting was dropped');
  if (req.user !== undefined) warn('user', 'gemini has no end-user field; it was dropped');
  if (req.metadata !== undefined) warn('metadata', 'gemini has no request metadata; it was dropped');
  return {
    path: req.stream
      ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
      : `/v1beta/models/${model}:generateContent`,
    body,
    headers: {},
  };
}

/**
 * Function tools go out as `parametersJsonSchema` (exact JSON Schema, no lossy conversion to the
 * OpenAPI subset). Built-in tools a Gemini client declared keep their wire object; others map by
 * kind where Gemini has the tool, else the request is refused naming the tool.
 */
function encodeTools(req: ChatRequest, warn: WarningSink): Json[] {
  const declarations: Json[] = [];
  const out: Json[] = [];
  const own = ownExtensions(req, 'gemini');
  const responseSchemas = isObject(own.functionResponseSchemas) ? own.functionResponseSchemas : {};
  const allowed =
    req.toolChoice?.type === 'allowed' && req.toolChoice.mode === 'auto' ? new Set(req.toolChoice.names) : undefined;
  req.tools.forEach((t: Tool, i) => {
    if (t.cache !== undefined) warn('cache', 'gemini caches prompts implicitly; cache hints were dropped');
    if (t.type === 'function') {
      // "allowed, mode auto": Gemini's AUTO takes no name list, so only the allowed functions are declared.
      if (allowed && !allowed.has(t.name)) return;
      if (t.strict !== undefined) warn('strict', 'gemini has no strict flag for function schemas; it was dropped');
      const d: Json = { name: t.name };
      if (t.description !== undefined) d.description = t.description;
      d.parametersJsonSchema = geminiJsonSchema(t.parameters);
      const rs = responseSchemas[t.name];
      if (isObject(rs)) Object.assign(d, rs);
      declarations.push(d);
      return;
    }
    // A Gemini client's own tool goes back as it came: its wire name and settings.
    if (t.name !== undefined && Object.hasOwn(geminiBuiltinKinds, t.name)) {
      out.push({ [t.name]: t.options });
      return;
    }
    switch (t.kind) {
      case 'code-execution':
        out.push({ codeExecution: {} });
        break;
      case 'web-search': {
        // Google Search takes no settings: another format's (domains, location, uses) are reported.
        const settings = Object.keys(t.options).filter((k) => k !== 'type');
        if (settings.length > 0)
          warn(`tools[${i}]`, `gemini's googleSearch has no settings; ${settings.join(', ')} dropped`);
        out.push({ googleSearch: {} });
        break;
      }
      case 'web-fetch':
      case 'file-search':
      case 'computer-use':
      case 'bash':
      case 'text-editor':
        throw invalid(
          `tools[${i}]`,
          `tools[${i}]: built-in tool '${t.name ?? t.kind}' is not supported by provider format 'gemini'`,
        );
      default:
        assertNever(t.kind, 'builtin tool kind');
    }
  });
  return declarations.length > 0 ? [{ functionDeclarations: declarations }, ...out] : out;
}

function encodeToolConfig(choice: ToolChoice | undefined, tools: Tool[]): Json {
  if (!choice) return {};
  // functionCallingConfig forces functions only: a forced built-in tool cannot be asked for.
  const forced = forcedBuiltinTool(tools, choice);
  if (forced)
    throw invalid(
      'tool_choice',
      `tool_choice: provider format 'gemini' cannot force the built-in tool '${forced.name ?? forced.kind}'`,
    );
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
    case 'allowed':
      return choice.mode === 'required'
        ? { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: choice.names } }
        : { functionCallingConfig: { mode: 'AUTO' } };
    default:
      return assertNever(choice, 'tool choice');
  }
}

/** The sampling knobs generationConfig takes as they are (stop sequences are counted first). */
const samplingNames: SamplingNames = [
  ['temperature', 'temperature'],
  ['topP', 'topP'],
  ['topK', 'topK'],
  ['seed', 'seed'],
  ['presencePenalty', 'presencePenalty'],
  ['frequencyPenalty', 'frequencyPenalty'],
  ['candidateCount', 'candidateCount'],
  ['logprobs', 'responseLogprobs'],
  ['topLogprobs', 'logprobs'],
];

function encodeGenerationConfig(req: ChatRequest): Json {
  const s = req.sampling;
  const g: Json = {};
  if (s.stop !== undefined && s.stop.length > 0) {
    if (s.stop.length > 5)
      throw invalid('stop', `stop: provider format 'gemini' accepts at most 5 stop sequences (got ${s.stop.length})`);
    g.stopSequences = s.stop;
  }
  copySampling(s, samplingNames, g);
  if (req.maxTokens !== undefined) g.maxOutputTokens = req.maxTokens;
  const out = req.output;
  if (out?.type === 'json') g.responseMimeType = 'application/json';
  if (out?.type === 'json-schema') {
    const values = stringEnumOf(out.schema);
    if (ownExtensions(req, 'gemini').responseMimeType === 'text/x.enum' && values) {
      g.responseMimeType = 'text/x.enum';
      g.responseSchema = geminiEnumSchema(values);
    } else {
      g.responseMimeType = 'application/json';
      g.responseJsonSchema = geminiJsonSchema(out.schema);
    }
  }
  const r = req.reasoning;
  if (r) {
    if (!r.enabled) g.thinkingConfig = { thinkingBudget: 0 };
    else {
      const tc: Json = {};
      const level = ownExtensions(req, 'gemini').thinkingLevel;
      if (typeof level === 'string') tc.thinkingLevel = level;
      else if (r.budgetTokens !== undefined) tc.thinkingBudget = r.budgetTokens;
      // Levels above `high` (`xhigh`, Anthropic's `max`) ask for more than every Gemini model's
      // budget cap takes: the nearest of Gemini's own four levels keeps the budget valid.
      else if (r.effort !== undefined)
        tc.thinkingBudget =
          budgetOfEffort[
            r.effort === 'none' ? 'none' : nearestEffort(r.effort, ['minimal', 'low', 'medium', 'high'] as const)
          ];
      // Adaptive thinking without an effort is Gemini's dynamic budget.
      else if (r.adaptive) tc.thinkingBudget = -1;
      tc.includeThoughts = r.includeThoughts ?? true;
      g.thinkingConfig = tc;
    }
  }
  return g;
}

/**
 * Gemini-only fields a Gemini client sent go back to their place; `generationConfig.X`,
 * `toolConfig.X` and `tools.X` name fields newer than this adapter. Anything else (a dropped
 * part's note) is named in a warning.
 */
function relayExtensions(
  ext: Readonly<Record<string, unknown>>,
  body: Json,
  gen: Json,
  tools: Json[],
  toolConfig: Json,
  warn: WarningSink,
): void {
  for (const [key, value] of Object.entries(ext)) {
    if (value === undefined || consumed.includes(key) || isClientSideExtension('gemini', key)) continue;
    if (topLevelExtensions.includes(key)) body[key] = value;
    else if (generationExtensions.includes(key)) gen[key] = value;
    else if (key.startsWith('generationConfig.')) gen[key.slice('generationConfig.'.length)] = value;
    else if (key.startsWith('toolConfig.')) toolConfig[key.slice('toolConfig.'.length)] = value;
    else if (key.startsWith('tools.')) tools.push({ [key.slice('tools.'.length)]: value });
    else {
      const rejected = outputChangingExtension(key, value, 'gemini');
      if (rejected) throw rejected;
      warn(key, `provider format 'gemini' has no equivalent of '${key}'; it was dropped`);
    }
  }
}
