// GenerateContentRequest (client → polygate) → IR ChatRequest
// (https://ai.google.dev/api/generate-content#request-body). The model comes from the path
// (`/v1beta/models/{model}:generateContent`), streaming from the route (streamGenerateContent).
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import type { InboundContext } from '../shared/chat-adapter.ts';
import { arr, obj, oneOf, str } from '../shared/narrow.ts';
import { CallIdMatcher } from './call-ids.ts';
import { decodeContents, decodeSystemInstruction } from './decode-gemini-contents.ts';
import { decodeToolConfig, decodeTools } from './decode-gemini-tools.ts';
import { decodeGenerationConfig } from './decode-generation-config.ts';
import { pick, rejectUnknown } from './gemini-fields.ts';

/**
 * Top-level fields the SDK may send that only Gemini understands; they ride in `extensions`
 * under their camelCase name. Any other unknown field is refused, as the real API does.
 */
const relayedTopLevel = ['safetySettings', 'cachedContent', 'labels', 'serviceTier', 'store'] as const;
/** `model` in the body is tolerated (some clients send it) but the path names the model. */
const known = ['contents', 'tools', 'toolConfig', 'systemInstruction', 'generationConfig', 'model', ...relayedTopLevel] as const;

const harmCategories = [
  'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_SEXUALLY_EXPLICIT', 'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY', 'HARM_CATEGORY_UNSPECIFIED', 'HARM_CATEGORY_DEROGATORY', 'HARM_CATEGORY_TOXICITY',
  'HARM_CATEGORY_VIOLENCE', 'HARM_CATEGORY_SEXUAL', 'HARM_CATEGORY_MEDICAL', 'HARM_CATEGORY_DANGEROUS',
] as const;
const thresholds = ['HARM_BLOCK_THRESHOLD_UNSPECIFIED', 'BLOCK_LOW_AND_ABOVE', 'BLOCK_MEDIUM_AND_ABOVE', 'BLOCK_ONLY_HIGH', 'BLOCK_NONE', 'OFF'] as const;

export function decodeGeminiRequest(body: unknown, ctx: InboundContext): ChatRequest {
  const b = obj(body, 'body');
  rejectUnknown(b, known, '');
  const model = (ctx.params.model ?? '').replace(/^models\//, '');
  if (model === '') throw invalid('model', 'model: the path must name a model (/v1beta/models/{model}:generateContent)');

  const contents = pick(b, 'contents', '');
  if (contents.value === undefined) throw invalid(contents.path, `${contents.path}: is required`);
  const req: ChatRequest = {
    model,
    system: [],
    messages: decodeContents(contents.value, contents.path, new CallIdMatcher()),
    tools: [],
    sampling: {},
    stream: ctx.streamByRoute === true,
    extensions: {},
  };

  const sys = pick(b, 'systemInstruction', '');
  if (sys.value !== undefined) req.system = decodeSystemInstruction(sys.value, sys.path);

  const tools = pick(b, 'tools', '');
  if (tools.value !== undefined) {
    const t = decodeTools(tools.value, tools.path);
    req.tools = t.tools;
    Object.assign(req.extensions, t.extensions);
    if (Object.keys(t.responseSchemas).length > 0) req.extensions.functionResponseSchemas = t.responseSchemas;
  }
  const tc = pick(b, 'toolConfig', '');
  if (tc.value !== undefined) {
    const c = decodeToolConfig(tc.value, tc.path, req.tools);
    if (c.toolChoice) req.toolChoice = c.toolChoice;
    Object.assign(req.extensions, c.extensions);
  }

  const gc = pick(b, 'generationConfig', '');
  if (gc.value !== undefined) {
    const g = decodeGenerationConfig(gc.value, gc.path);
    req.sampling = g.sampling;
    if (g.maxTokens !== undefined) req.maxTokens = g.maxTokens;
    if (g.output) req.output = g.output;
    if (g.reasoning) req.reasoning = g.reasoning;
    Object.assign(req.extensions, g.extensions);
  }

  const ss = pick(b, 'safetySettings', '');
  if (ss.value !== undefined) req.extensions.safetySettings = checkSafetySettings(ss.value, ss.path);
  const cached = pick(b, 'cachedContent', '');
  if (cached.value !== undefined) {
    const name = str(cached.value, cached.path);
    if (!/^cachedContents\/[^/]+$/.test(name)) throw invalid(cached.path, `${cached.path}: must have the form cachedContents/{cachedContent}`);
    req.extensions.cachedContent = name;
  }
  for (const name of ['labels', 'serviceTier', 'store'] as const) {
    const f = pick(b, name, '');
    if (f.value !== undefined) req.extensions[name] = f.value;
  }
  return req;
}

/** SafetySetting: category and threshold are both required enums. */
function checkSafetySettings(v: unknown, path: string): Array<{ category: string; threshold: string }> {
  return arr(v, path).map((x, i) => {
    const at = `${path}[${i}]`;
    const s = obj(x, at);
    rejectUnknown(s, ['category', 'threshold'], at);
    const c = pick(s, 'category', at);
    const t = pick(s, 'threshold', at);
    if (c.value === undefined) throw invalid(c.path, `${c.path}: is required`);
    if (t.value === undefined) throw invalid(t.path, `${t.path}: is required`);
    return { category: oneOf(c.value, harmCategories, c.path), threshold: oneOf(t.value, thresholds, t.path) };
  });
}
