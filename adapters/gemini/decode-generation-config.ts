// Client `generationConfig` → IR sampling, output format and reasoning
// (https://ai.google.dev/api/generate-content#generationconfig). Limits are the spec's:
// stopSequences ≤ 5, temperature 0–2. Fields only Gemini can honour (speech, modalities, media
// resolution, civic answers, logprobs) go to `extensions` under their camelCase wire name, so the
// pipeline relays them to a Gemini upstream or rejects / warns for others: never a silent drop.
import type { OutputFormat, ReasoningConfig, ReasoningEffort, SamplingKnobs } from '../../src/ir/chat-request.ts';
import { invalid } from '../../src/ir/gateway-error.ts';
import { arr, bool, int, num, obj, oneOf, str } from '../shared/narrow.ts';
import { nearestEffort, noteInto, openEnum } from '../shared/open-enum.ts';
import type { DroppedField } from '../shared/dropped-fields.ts';
import { inRange, noteUnknown, pick, unknownKeys, valueOf, type Picked } from './gemini-fields.ts';
import { jsonSchemaOfGeminiSchema, stringEnumOf } from './gemini-schema.ts';

const mimeTypes = ['text/plain', 'application/json', 'text/x.enum'] as const;
const thinkingLevels = ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'] as const;
const known = [
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'candidateCount',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'enableEnhancedCivicAnswers',
  'speechConfig',
  'thinkingConfig',
  'mediaResolution',
] as const;

export type DecodedGenerationConfig = {
  sampling: SamplingKnobs;
  maxTokens?: number;
  output?: OutputFormat;
  reasoning?: ReasoningConfig;
  extensions: Record<string, unknown>;
};

export function decodeGenerationConfig(v: unknown, path: string, dropped: DroppedField[]): DecodedGenerationConfig {
  const g = obj(v, path);
  const out: DecodedGenerationConfig = { sampling: {}, extensions: {} };
  // Fields newer than this adapter (imageConfig, audioTranscriptionConfig…) are relayed to a
  // Gemini upstream under `generationConfig.<name>` rather than refused.
  for (const { camel, key } of unknownKeys(g, known)) out.extensions[`generationConfig.${camel}`] = g[key];
  // A field the client left out is undefined, not a Picked: most of these nineteen are absent.
  const f = (name: (typeof known)[number]): Picked | undefined =>
    valueOf(g, name) === undefined ? undefined : pick(g, name, path);
  const s = out.sampling;

  const stop = f('stopSequences');
  if (stop !== undefined) {
    const list = arr(stop.value, stop.path).map((x, i) => str(x, `${stop.path}[${i}]`));
    if (list.length > 5)
      throw invalid(stop.path, `${stop.path}: at most 5 stop sequences are allowed (got ${list.length})`);
    s.stop = list;
  }
  const temp = f('temperature');
  if (temp !== undefined) s.temperature = inRange(num(temp.value, temp.path), 0, 2, temp.path);
  const topP = f('topP');
  if (topP !== undefined) s.topP = inRange(num(topP.value, topP.path), 0, 1, topP.path);
  const topK = f('topK');
  if (topK !== undefined) s.topK = positive(topK);
  const seed = f('seed');
  if (seed !== undefined) s.seed = int(seed.value, seed.path);
  const pp = f('presencePenalty');
  if (pp !== undefined) s.presencePenalty = num(pp.value, pp.path);
  const fp = f('frequencyPenalty');
  if (fp !== undefined) s.frequencyPenalty = num(fp.value, fp.path);
  const cc = f('candidateCount');
  if (cc !== undefined) {
    const n = positive(cc);
    // One candidate is what every upstream returns; several would need N parallel calls.
    if (n > 1) throw invalid(cc.path, `${cc.path}: only 1 candidate is supported by this service (got ${n})`);
    s.candidateCount = n;
  }
  const mot = f('maxOutputTokens');
  if (mot !== undefined) out.maxTokens = positive(mot);

  const rl = f('responseLogprobs');
  const lp = f('logprobs');
  if (rl !== undefined) {
    s.logprobs = bool(rl.value, rl.path);
    out.extensions.responseLogprobs = s.logprobs;
  }
  if (lp !== undefined) {
    const n = inRange(int(lp.value, lp.path), 0, 20, lp.path);
    if (s.logprobs !== true) throw invalid(lp.path, `${lp.path}: requires responseLogprobs to be true`);
    s.topLogprobs = n;
    out.extensions.logprobs = n;
  }

  decodeOutput(f, out, dropped);
  const tc = f('thinkingConfig');
  if (tc !== undefined) out.reasoning = decodeThinking(tc, out.extensions, dropped);

  const rm = f('responseModalities');
  // Any modality word is kept: an upstream encoder refuses every one but TEXT (it changes the
  // answer), a Gemini upstream gets them as sent.
  if (rm !== undefined)
    out.extensions.responseModalities = arr(rm.value, rm.path).map((m, i) => str(m, `${rm.path}[${i}]`));
  const mr = f('mediaResolution');
  // A tuning knob polygate only relays or warns away: a resolution newer than polygate is no error.
  if (mr !== undefined) out.extensions.mediaResolution = str(mr.value, mr.path);
  const civic = f('enableEnhancedCivicAnswers');
  if (civic !== undefined) out.extensions.enableEnhancedCivicAnswers = bool(civic.value, civic.path);
  const sc = f('speechConfig');
  // Spoken output: refused with a 400 by every non-Gemini encoder, relayed to Gemini as sent.
  if (sc !== undefined) out.extensions.speechConfig = obj(sc.value, sc.path);
  return out;
}

function positive(p: Picked): number {
  const n = int(p.value, p.path);
  if (n < 1) throw invalid(p.path, `${p.path}: must be a positive integer (got ${n})`);
  return n;
}

/**
 * responseMimeType + responseSchema / responseJsonSchema → OutputFormat. `text/x.enum` answers
 * with the bare enum value; the IR models it as a string-enum schema, and the mime type stays in
 * `extensions.responseMimeType` so the encoders can unquote the JSON string again.
 */
function decodeOutput(
  f: (name: (typeof known)[number]) => Picked | undefined,
  out: DecodedGenerationConfig,
  dropped: DroppedField[],
): void {
  const mt = f('responseMimeType');
  const mime = mt === undefined ? 'text/plain' : oneOf(mt.value, mimeTypes, mt.path);
  const rs = f('responseSchema');
  const rjs = f('responseJsonSchema');
  if (rs !== undefined && rjs !== undefined)
    throw invalid(rjs.path, `${rjs.path}: responseSchema and responseJsonSchema are mutually exclusive`);
  const schemaField = rs ?? rjs;
  const schema =
    rs !== undefined
      ? jsonSchemaOfGeminiSchema(rs.value, rs.path, dropped)
      : rjs !== undefined
        ? obj(rjs.value, rjs.path)
        : undefined;
  if (mime === 'text/plain') {
    if (schemaField)
      throw invalid(
        schemaField.path,
        `${schemaField.path}: requires responseMimeType 'application/json' or 'text/x.enum'`,
      );
    return;
  }
  if (mime === 'application/json') {
    out.output = schema ? { type: 'json-schema', name: 'response', schema } : { type: 'json' };
    return;
  }
  if (!schema || !schemaField || stringEnumOf(schema) === undefined) {
    // mt is there: the mime type is text/x.enum.
    const at = (schemaField ?? mt)?.path ?? 'generationConfig.responseMimeType';
    throw invalid(at, `${at}: responseMimeType 'text/x.enum' needs a responseSchema of type STRING with an enum`);
  }
  out.output = { type: 'json-schema', name: 'response', schema };
  out.extensions.responseMimeType = 'text/x.enum';
}

const effortOfLevel: Record<Exclude<(typeof thinkingLevels)[number], 'THINKING_LEVEL_UNSPECIFIED'>, ReasoningEffort> = {
  MINIMAL: 'minimal',
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
};

/** The nearest level of each effort (Gemini's scale stops at HIGH and has no off level). */
const levelOfEffort: Record<ReasoningEffort, (typeof thinkingLevels)[number]> = {
  none: 'MINIMAL',
  minimal: 'MINIMAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  xhigh: 'HIGH',
  max: 'HIGH',
};

/** thinkingBudget 0 turns thinking off, -1 lets the model decide, N caps it; thinkingLevel is an effort. */
function decodeThinking(tc: Picked, extensions: Record<string, unknown>, dropped: DroppedField[]): ReasoningConfig {
  const t = obj(tc.value, tc.path);
  noteUnknown(t, ['includeThoughts', 'thinkingBudget', 'thinkingLevel'], tc.path, dropped);
  const it = pick(t, 'includeThoughts', tc.path);
  const tb = pick(t, 'thinkingBudget', tc.path);
  const tl = pick(t, 'thinkingLevel', tc.path);
  if (tb.value !== undefined && tl.value !== undefined)
    throw invalid(tl.path, `${tl.path}: thinkingBudget and thinkingLevel cannot both be set`);
  const r: ReasoningConfig = { enabled: true };
  if (it.value !== undefined) r.includeThoughts = bool(it.value, it.path);
  if (tb.value !== undefined) {
    const budget = int(tb.value, tb.path);
    if (budget < -1) throw invalid(tb.path, `${tb.path}: must be -1 (dynamic), 0 (off) or a positive token count`);
    r.enabled = budget !== 0;
    if (budget > 0) r.budgetTokens = budget;
  }
  if (tl.value !== undefined) {
    // A level newer than polygate (as MINIMAL once was) is read as the nearest one, warned.
    const level =
      openEnum(tl.value, thinkingLevels, tl.path, noteInto(dropped), (w) => levelOfEffort[nearestEffort(w)]) ??
      'THINKING_LEVEL_UNSPECIFIED';
    if (level !== 'THINKING_LEVEL_UNSPECIFIED') {
      r.effort = effortOfLevel[level];
      extensions.thinkingLevel = level;
    }
  }
  return r;
}
