// Family C through the official @google/genai SDK (generateContent, generateContentStream), on
// the spec's /v1beta paths. Structured output goes as `responseSchema` (Gemini's OpenAPI-style
// Schema) or as `responseJsonSchema`, chosen per driver.
import {
  ApiError,
  FunctionCallingConfigMode,
  GoogleGenAI,
  Type,
  type Content,
  type GenerateContentResponse,
  type Part,
  type Schema,
} from '@google/genai';
import type { Driver, ErrorOutcome, ReasoningOutcome, ToolCallOutcome, ToolDef } from './driver.ts';
import { reasoningBudget, type JsonSchema } from '../fixtures.ts';

const partsOf = (r: GenerateContentResponse): Part[] => r.candidates?.[0]?.content?.parts ?? [];
const visibleText = (parts: Part[]): string => parts.map((p) => (p.thought ? '' : (p.text ?? ''))).join('');

/**
 * JSON Schema → Gemini Schema (upper-case types; integer limits as strings, as the SDK types
 * them). Only the keywords the matrix schema uses; `additionalProperties` has no Schema field.
 */
export function geminiSchemaOf(s: JsonSchema): Schema {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type') out.type = String(v).toUpperCase();
    else if (k === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, JsonSchema>).map(([n, sub]) => [n, geminiSchemaOf(sub)]),
      );
    else if (k === 'items') out.items = geminiSchemaOf(v as JsonSchema);
    else if (['minLength', 'maxLength', 'minItems', 'maxItems'].includes(k)) out[k] = String(v);
    else if (k !== 'additionalProperties') out[k] = v;
  }
  return out as Schema;
}

/** What a JSON Schema looks like after a round trip through Gemini's Schema. */
export function viaGeminiSchema(s: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, JsonSchema>).map(([n, sub]) => [n, viaGeminiSchema(sub)]),
      );
    else if (k === 'items') out.items = viaGeminiSchema(v as JsonSchema);
    else if (k !== 'additionalProperties') out[k] = v;
  }
  return out;
}

export type GeminiDriver = Driver & { enumOutput(model: string, values: string[], prompt: string): Promise<string> };

export function geminiDriver(
  baseUrl: string,
  apiKey: string,
  opts: { schemaField: 'responseSchema' | 'responseJsonSchema' } = { schemaField: 'responseSchema' },
): GeminiDriver {
  const ai = new GoogleGenAI({ apiKey, apiVersion: 'v1beta', httpOptions: { baseUrl } });
  const declaration = (d: ToolDef) => ({ name: d.name, description: d.description, parametersJsonSchema: d.schema });
  /** Streams, returning every part in order (what a client appends to its history) and the last finish. */
  const streamParts = async (
    params: Parameters<typeof ai.models.generateContentStream>[0],
  ): Promise<{ parts: Part[]; deltas: string[]; finish: string }> => {
    const parts: Part[] = [];
    const deltas: string[] = [];
    let finish = '';
    for await (const chunk of await ai.models.generateContentStream(params)) {
      const ps = partsOf(chunk);
      parts.push(...ps);
      const text = visibleText(ps);
      if (text !== '') deltas.push(text);
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
    return { parts, deltas, finish };
  };
  return {
    family: 'gemini',
    streamsArgumentText: false,
    stopWords: { stop: 'STOP', tool: 'STOP' },
    errorWords: { 429: ['RESOURCE_EXHAUSTED'], 500: ['INTERNAL'] },
    errorWord: (body) => (body as { error?: { status?: string } } | undefined)?.error?.status,

    async text(model, system, prompt) {
      const r = await ai.models.generateContent({ model, contents: prompt, config: { systemInstruction: system } });
      return {
        text: r.text ?? '',
        finish:
          r.candidates?.[0]?.finishReason ??
          (r.promptFeedback?.blockReason ? `blocked:${r.promptFeedback.blockReason}` : ''),
        model: r.modelVersion ?? '',
        usage: { input: r.usageMetadata?.promptTokenCount ?? 0, output: r.usageMetadata?.candidatesTokenCount ?? 0 },
      };
    },

    async stream(model, prompt) {
      const { parts, deltas, finish } = await streamParts({ model, contents: prompt });
      return { deltas, text: visibleText(parts), finish };
    },

    async toolCall(model, prompt, d) {
      const { parts, finish } = await streamParts({
        model,
        contents: prompt,
        config: {
          tools: [{ functionDeclarations: [declaration(d)] }],
          toolConfig: {
            functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [d.name] },
          },
        },
      });
      const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall!);
      if (calls.length === 0) throw new Error(`no functionCall in ${JSON.stringify(parts)}`);
      const fc = calls[0];
      const history: Content[] = [
        { role: 'user', parts: [{ text: prompt }] },
        { role: 'model', parts },
      ];
      return {
        pieces: calls.map((c) => JSON.stringify(c.args ?? {})),
        call: {
          ...(fc.id !== undefined ? { id: fc.id } : {}),
          name: fc.name ?? '',
          args: (fc.args ?? {}) as Record<string, unknown>,
        },
        finish,
        history,
      };
    },

    async toolResultTurn(model, prev: ToolCallOutcome, d, result) {
      const response = {
        ...(prev.call.id !== undefined ? { id: prev.call.id } : {}),
        name: prev.call.name,
        response: { content: result },
      };
      const r = await ai.models.generateContent({
        model,
        contents: [...(prev.history as Content[]), { role: 'user', parts: [{ functionResponse: response }] }],
        config: { tools: [{ functionDeclarations: [declaration(d)] }] },
      });
      return { text: r.text ?? '' };
    },

    async image(model, png, prompt) {
      const r = await ai.models.generateContent({
        model,
        contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: png } }, { text: prompt }] }],
      });
      return { text: r.text ?? '' };
    },

    async jsonSchema(model, schema: JsonSchema, prompt) {
      const config =
        opts.schemaField === 'responseSchema'
          ? { responseMimeType: 'application/json', responseSchema: geminiSchemaOf(schema) }
          : { responseMimeType: 'application/json', responseJsonSchema: schema };
      const r = await ai.models.generateContent({ model, contents: prompt, config });
      return { text: r.text ?? '' };
    },

    /** `text/x.enum` output: the answer is the bare enum value. */
    async enumOutput(model, values, prompt) {
      const r = await ai.models.generateContent({
        model,
        contents: prompt,
        config: { responseMimeType: 'text/x.enum', responseSchema: { type: Type.STRING, enum: values } },
      });
      return r.text ?? '';
    },

    async reasoning(model, prompt) {
      const { parts } = await streamParts({
        model,
        contents: prompt,
        config: { thinkingConfig: { thinkingBudget: reasoningBudget, includeThoughts: true } },
      });
      const thoughts = parts.filter((p) => p.thought === true);
      const token = parts.find((p) => p.thoughtSignature !== undefined)?.thoughtSignature;
      return {
        thinking: thoughts.length > 0 ? thoughts.map((p) => p.text ?? '').join('') : undefined,
        token,
        text: visibleText(parts),
        history: [
          { role: 'user', parts: [{ text: prompt }] },
          { role: 'model', parts },
        ] satisfies Content[],
      };
    },

    async reasoningContinue(model, prev: ReasoningOutcome, prompt) {
      const r = await ai.models.generateContent({
        model,
        contents: [...(prev.history as Content[]), { role: 'user', parts: [{ text: prompt }] }],
        config: { thinkingConfig: { thinkingBudget: reasoningBudget, includeThoughts: true } },
      });
      return { text: r.text ?? '' };
    },

    async error(model): Promise<ErrorOutcome> {
      const e = await ai.models.generateContent({ model, contents: 'x' }).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
      // ApiError carries the status and the body's JSON text in its message.
      const json = /\{[\s\S]*\}$/.exec(e.message)?.[0];
      return { status: e.status, body: json ? (JSON.parse(json) as unknown) : e.message, headers: undefined };
    },
  };
}
