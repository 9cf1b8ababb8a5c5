// What a Gemini upstream received (https://ai.google.dev/api/generate-content#request-body).
// Field names are read in both spellings: a pass-through relays the SDK's camelCase as is.
import { body, header, isObj, list, type Inspector } from './inspector.ts';
import type { Json } from '../fixtures.ts';

const parts = (b: Json): Array<{ role: unknown; part: Json }> =>
  list(b.contents).flatMap((c) => list(c.parts).map((part) => ({ role: c.role, part })));
const gen = (b: Json): Json => (isObj(b.generationConfig) ? b.generationConfig : {});

export const geminiInspector: Inspector = {
  key: (r) => header(r, 'x-goog-api-key'),
  model: (r) => /\/models\/([^:]+):/.exec(r.path)?.[1] ?? '',
  system: (r) => {
    const s = body(r).systemInstruction;
    return isObj(s)
      ? list(s.parts)
          .map((p) => String(p.text ?? ''))
          .join('')
      : undefined;
  },
  tools: (r) =>
    list(body(r).tools)
      .flatMap((t) => list(t.functionDeclarations))
      .map((d) => ({ name: String(d.name), schema: d.parametersJsonSchema ?? d.parameters })),
  forcedTool: (r) => {
    const tc = body(r).toolConfig;
    const fcc = isObj(tc) && isObj(tc.functionCallingConfig) ? tc.functionCallingConfig : undefined;
    return fcc?.mode === 'ANY' && Array.isArray(fcc.allowedFunctionNames) && fcc.allowedFunctionNames.length === 1
      ? String(fcc.allowedFunctionNames[0])
      : undefined;
  },
  historyCall: (r) => {
    const fc = parts(body(r)).find((x) => isObj(x.part.functionCall))?.part.functionCall as Json | undefined;
    return fc
      ? { ...(typeof fc.id === 'string' ? { id: fc.id } : {}), name: String(fc.name), args: (fc.args ?? {}) as Json }
      : undefined;
  },
  toolResult: (r) => {
    const fr = parts(body(r)).find((x) => isObj(x.part.functionResponse))?.part.functionResponse as Json | undefined;
    return fr
      ? {
          ...(typeof fr.id === 'string' ? { callId: fr.id } : {}),
          name: String(fr.name),
          text: JSON.stringify(fr.response),
        }
      : undefined;
  },
  image: (r) => {
    const d = parts(body(r)).find((x) => isObj(x.part.inlineData))?.part.inlineData as Json | undefined;
    return d ? { mediaType: String(d.mimeType), data: String(d.data) } : undefined;
  },
  outputSchema: (r) => {
    const g = gen(body(r));
    const s = g.responseJsonSchema ?? g.responseSchema;
    return isObj(s) ? s : undefined;
  },
  reasoning: (r) => {
    const tc = gen(body(r)).thinkingConfig;
    if (!isObj(tc)) return undefined;
    return typeof tc.thinkingBudget === 'number'
      ? { budget: tc.thinkingBudget }
      : typeof tc.thinkingLevel === 'string'
        ? { effort: tc.thinkingLevel.toLowerCase() }
        : {};
  },
  replayedTokens: (r) =>
    parts(body(r)).flatMap((x) => (typeof x.part.thoughtSignature === 'string' ? [x.part.thoughtSignature] : [])),
};
