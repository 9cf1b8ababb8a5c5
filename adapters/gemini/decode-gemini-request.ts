// GenerateContentRequest (client → polygate) → IR ChatRequest
// (https://ai.google.dev/api/generate-content#request-body). The model comes from the path
// (`/v1beta/models/{model}:generateContent`), streaming from the route (streamGenerateContent).
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import type { InboundContext } from '../shared/chat-adapter.ts';
import { recordDropped, type DroppedField } from '../shared/dropped-fields.ts';
import { decodeServiceTier } from '../shared/service-tier.ts';
import { arr, obj, str, type Json } from '../shared/narrow.ts';
import { CallIdMatcher } from './call-ids.ts';
import { decodeContents, decodeSystemInstruction } from './decode-gemini-contents.ts';
import { decodeToolConfig, decodeTools } from './decode-gemini-tools.ts';
import { decodeGenerationConfig } from './decode-generation-config.ts';
import { pick, unknownKeys, valueOf, type Picked } from './gemini-fields.ts';
import { modelOfPath } from './gemini-relay.ts';

/**
 * Top-level fields the SDK may send that only Gemini understands; they ride in `extensions`
 * under their camelCase name, and so does any field newer than this adapter (open world,
 * docs/open-world.md): relayed to a Gemini upstream, named in a warning by the others.
 */
const relayedTopLevel = ['safetySettings', 'cachedContent', 'labels', 'serviceTier', 'store'] as const;
/** Relayed as sent, unchecked. */
const keptAsSent = ['labels', 'serviceTier', 'store'] as const;
/** `model` in the body is tolerated (some clients send it) but the path names the model. */
const known = [
  'contents',
  'tools',
  'toolConfig',
  'systemInstruction',
  'generationConfig',
  'model',
  ...relayedTopLevel,
] as const;

export function decodeGeminiRequest(body: unknown, ctx: InboundContext): ChatRequest {
  const b = obj(body, 'body');
  const dropped: DroppedField[] = [];
  const model = modelOfPath(ctx);

  const contents = pick(b, 'contents', '');
  if (contents.value === undefined) throw invalid(contents.path, `${contents.path}: is required`);
  const req: ChatRequest = {
    model,
    system: [],
    messages: decodeContents(contents.value, contents.path, new CallIdMatcher(), dropped),
    tools: [],
    sampling: {},
    stream: ctx.streamByRoute === true,
    extensions: {},
  };
  // Gemini's own options, in its namespace (adapters/shared/format-extensions.ts).
  const e: Record<string, unknown> = {};
  // An optional field the client left out is undefined, not a Picked (most of these are absent).
  const field = (name: (typeof known)[number]): Picked | undefined =>
    valueOf(b, name) === undefined ? undefined : pick(b, name, '');

  const sys = field('systemInstruction');
  if (sys !== undefined) req.system = decodeSystemInstruction(sys.value, sys.path, dropped);

  const tools = field('tools');
  if (tools !== undefined) {
    const t = decodeTools(tools.value, tools.path, dropped);
    req.tools = t.tools;
    Object.assign(e, t.extensions);
    if (Object.keys(t.responseSchemas).length > 0) e.functionResponseSchemas = t.responseSchemas;
  }
  const tc = field('toolConfig');
  if (tc !== undefined) {
    const c = decodeToolConfig(tc.value, tc.path, req.tools, dropped);
    if (c.toolChoice) req.toolChoice = c.toolChoice;
    Object.assign(e, c.extensions);
  }

  const gc = field('generationConfig');
  if (gc !== undefined) {
    const g = decodeGenerationConfig(gc.value, gc.path, dropped);
    req.sampling = g.sampling;
    if (g.maxTokens !== undefined) req.maxTokens = g.maxTokens;
    if (g.output) req.output = g.output;
    if (g.reasoning) req.reasoning = g.reasoning;
    Object.assign(e, g.extensions);
  }

  const ss = field('safetySettings');
  if (ss !== undefined) e.safetySettings = checkSafetySettings(ss.value, ss.path);
  const cached = field('cachedContent');
  if (cached !== undefined) {
    const name = str(cached.value, cached.path);
    if (!/^cachedContents\/[^/]+$/.test(name))
      throw invalid(cached.path, `${cached.path}: must have the form cachedContents/{cachedContent}`);
    e.cachedContent = name;
  }
  for (let i = 0; i < keptAsSent.length; i++) {
    const v = valueOf(b, keptAsSent[i]);
    if (v !== undefined) e[keptAsSent[i]] = v;
  }
  const unknown = unknownKeys(b, known);
  for (let i = 0; i < unknown.length; i++) e[unknown[i].camel] = b[unknown[i].key];
  // The tier is shared with OpenAI and Anthropic; a word newer than polygate stays Gemini's.
  const tier = decodeServiceTier('gemini', e.serviceTier);
  if (tier !== undefined) {
    req.serviceTier = tier;
    delete e.serviceTier;
  }
  if (Object.keys(e).length > 0) req.extensions.gemini = e;
  recordDropped(req, 'gemini', dropped);
  return req;
}

/**
 * SafetySetting: category and threshold are both required. polygate never acts on them (a Gemini
 * upstream gets them, the others warn them away), so a category or threshold newer than polygate
 * is no error, nor is another setting (`method`): the objects are kept as sent.
 */
function checkSafetySettings(v: unknown, path: string): Json[] {
  return arr(v, path).map((x, i) => {
    const at = `${path}[${i}]`;
    const s = obj(x, at);
    const c = pick(s, 'category', at);
    const t = pick(s, 'threshold', at);
    if (c.value === undefined) throw invalid(c.path, `${c.path}: is required`);
    if (t.value === undefined) throw invalid(t.path, `${t.path}: is required`);
    str(c.value, c.path);
    str(t.value, t.path);
    return s;
  });
}
