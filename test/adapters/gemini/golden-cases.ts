// Seeded random Gemini requests and ChatResults for the golden test of the Gemini client codec
// (gemini-codec-golden.test.ts). Its own PRNG, so the cases do not depend on a library's version;
// any edit here changes the cases, and the digests must then be written again by the code before.
import type { ChatRequest, Part } from '../../../src/ir/chat-request.ts';
import type { ChatResult } from '../../../src/ir/chat-result.ts';

/** mulberry32: a small seeded PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type J = null | boolean | number | string | J[] | { [k: string]: J };
export type R = () => number;
export const pickOf = <T>(r: R, list: readonly T[]): T => list[Math.floor(r() * list.length)];
export const chance = (r: R, p: number): boolean => r() < p;
/** Half the cases are valid requests: no wrong type, no value out of range, no doubled field. */
let valid = false;
export const bad = (r: R, p: number): boolean => r() < p && !valid;
/** One of `good`, or in an invalid case sometimes one of `wrong`. */
const val = (r: R, good: readonly J[], wrong: readonly J[] = []): J => pickOf(r, valid ? good : [...good, ...wrong]);
const snake = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** The field under its camelCase name, its snake_case one, or sometimes both. */
function put(r: R, o: Record<string, J>, camel: string, v: J): void {
  const x = r();
  if (x < 0.7) o[camel] = v;
  else if (x < 0.97) o[snake(camel)] = v;
  else {
    o[camel] = v;
    o[snake(camel)] = val(r, [v], ['other', 1]);
  }
}
/** A value of a random wrong type now and then. */
const maybeWrong = (r: R, v: J): J => (bad(r, 0.025) ? pickOf(r, [1, 'x', true, null, [], {}] as J[]) : v);
const unknownKey = (r: R, o: Record<string, J>): void => {
  if (chance(r, 0.12)) o[pickOf(r, ['videoMetadata', 'media_resolution', 'newField', 'x_y_z', 'willContinue'])] = 1;
};

function part(r: R): J {
  const p: Record<string, J> = {};
  const kind = pickOf(r, [
    'text',
    'text',
    'text',
    'inlineData',
    'functionCall',
    'functionResponse',
    'code',
    'result',
    'text',
    'text',
    ...(valid ? [] : ['none']),
  ]);
  if (kind === 'text') put(r, p, 'text', maybeWrong(r, pickOf(r, ['Hello', '', 'Ünïcode ✓'])));
  if (kind === 'inlineData')
    put(
      r,
      p,
      'inlineData',
      maybeWrong(r, {
        mimeType: pickOf(r, ['image/png', 'application/pdf']),
        data: val(r, ['iVBORw0KGgo='], ['not base64!']),
      }),
    );
  if (kind === 'functionCall')
    put(
      r,
      p,
      'functionCall',
      maybeWrong(r, {
        name: val(r, ['get', 'read_file'], ['']),
        args: { a: 1 },
        ...(chance(r, 0.5) ? { id: 'c1' } : {}),
      }),
    );
  if (kind === 'functionResponse')
    put(
      r,
      p,
      'functionResponse',
      maybeWrong(r, {
        name: 'get',
        response: val(r, [{ output: 'ok' }, { error: 'bad' }], ['x']),
        ...(chance(r, 0.5) ? { id: 'c1' } : {}),
      }),
    );
  if (kind === 'code')
    put(r, p, 'executableCode', maybeWrong(r, { language: pickOf(r, ['PYTHON', 'RUST']), code: 'print(1)' }));
  if (kind === 'result')
    put(r, p, 'codeExecutionResult', maybeWrong(r, { outcome: pickOf(r, ['OUTCOME_OK', 'OK', 'NEW']), output: '1' }));
  // A required field left out (its path is the camelCase name; the snake_case one when sent so).
  if (bad(r, 0.08)) {
    const inner = p.inlineData ?? p.inline_data ?? p.executableCode ?? p.executable_code ?? p.functionResponse;
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner))
      delete inner[pickOf(r, ['mimeType', 'data', 'code', 'language', 'response', 'name'])];
  }
  if (bad(r, 0.05)) put(r, p, 'fileData', { fileUri: 'gs://x', mimeType: 'image/png' });
  if (bad(r, 0.06)) put(r, p, 'text', 'second');
  if (kind === 'text' || bad(r, 0.05)) if (chance(r, 0.1)) put(r, p, 'thought', maybeWrong(r, true));
  if (chance(r, 0.1)) put(r, p, 'thoughtSignature', maybeWrong(r, 'CiQB'));
  unknownKey(r, p);
  return maybeWrong(r, p);
}

function generationConfig(r: R): J {
  const g: Record<string, J> = {};
  const fields: Array<[string, () => J]> = [
    ['temperature', () => val(r, [0, 0.7, 2], [3])],
    ['topP', () => val(r, [0.5, 1], [1.5])],
    ['topK', () => val(r, [1, 40], [0])],
    ['seed', () => val(r, [7], [1.5])],
    ['maxOutputTokens', () => val(r, [256, '12'], [0])],
    ['candidateCount', () => val(r, [1], [2])],
    ['stopSequences', () => val(r, [['END']], [['a', 'b', 'c', 'd', 'e', 'f'], 'END'])],
    ['presencePenalty', () => 0.5],
    ['frequencyPenalty', () => 0.5],
    ['responseLogprobs', () => val(r, [true, false])],
    ['logprobs', () => val(r, [3], [30])],
    ['responseMimeType', () => val(r, ['application/json', 'text/plain'], ['text/x.enum'])],
    [
      'responseSchema',
      () =>
        val(r, [
          { type: 'STRING', enum: ['a', 'b'] },
          { type: 'object', properties: { a: { type: 'integer' } } },
        ]),
    ],
    ['responseJsonSchema', () => ({ type: 'object' })],
    [
      'thinkingConfig',
      () =>
        val(
          r,
          [{ includeThoughts: true, thinkingBudget: 128 }, { thinkingLevel: 'HIGH' }, { thinking_level: 'ULTRA' }],
          [{ thinkingBudget: -2 }],
        ),
    ],
    ['responseModalities', () => val(r, [['TEXT'], ['AUDIO']])],
    ['mediaResolution', () => 'MEDIA_RESOLUTION_LOW'],
    ['enableEnhancedCivicAnswers', () => true],
    ['speechConfig', () => ({ voiceConfig: {} })],
    ['imageConfig', () => ({ aspectRatio: '1:1' })],
  ];
  for (const [name, value] of fields) if (chance(r, 0.18)) put(r, g, name, maybeWrong(r, value()));
  if (
    valid &&
    g.responseSchema === undefined &&
    g.response_schema === undefined &&
    g.responseJsonSchema === undefined &&
    g.response_json_schema === undefined
  ) {
    delete g.responseMimeType;
    delete g.response_mime_type;
  }
  if (valid && g.logprobs !== undefined) g.responseLogprobs = true;
  return maybeWrong(r, g);
}

export function request(r: R, validCase: boolean): J {
  valid = validCase;
  const b: Record<string, J> = {};
  if (!bad(r, 0.03)) {
    const contents: J[] = [];
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) {
      const c: Record<string, J> = {};
      if (!chance(r, 0.2))
        put(r, c, 'role', maybeWrong(r, pickOf(r, ['user', 'model', 'user', 'model', 'function', 'tool', 'narrator'])));
      const parts: J[] = [];
      const m = Math.floor(r() * 3) + (bad(r, 0.05) ? 0 : 1);
      for (let j = 0; j < m; j++) parts.push(part(r));
      if (!bad(r, 0.04)) put(r, c, 'parts', maybeWrong(r, parts));
      unknownKey(r, c);
      contents.push(maybeWrong(r, c));
    }
    put(r, b, 'contents', maybeWrong(r, contents));
  }
  if (chance(r, 0.5))
    put(
      r,
      b,
      'systemInstruction',
      maybeWrong(r, { parts: [{ text: 'Be brief.' }, ...(bad(r, 0.1) ? [{ inlineData: {} }] : [])] }),
    );
  if (chance(r, 0.6)) put(r, b, 'generationConfig', generationConfig(r));
  if (chance(r, 0.2))
    put(
      r,
      b,
      'tools',
      maybeWrong(r, [
        {
          functionDeclarations: [
            {
              name: val(r, ['get'], ['9bad']),
              description: 'd',
              parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } } },
            },
          ],
        },
        ...(chance(r, 0.3) ? [{ googleSearch: {} }] : []),
      ]),
    );
  if (chance(r, 0.1))
    put(r, b, 'toolConfig', { functionCallingConfig: { mode: pickOf(r, ['ANY', 'AUTO', 'NEWMODE']) } });
  if (chance(r, 0.1))
    put(
      r,
      b,
      'safetySettings',
      maybeWrong(r, [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: val(r, ['BLOCK_NONE'], [1]) }]),
    );
  if (chance(r, 0.08)) put(r, b, 'cachedContent', val(r, ['cachedContents/abc'], ['abc']));
  if (chance(r, 0.08)) put(r, b, 'serviceTier', pickOf(r, ['standard', 'flex', 'newtier']));
  if (chance(r, 0.08)) put(r, b, 'labels', { team: 'a' });
  if (chance(r, 0.05)) put(r, b, 'store', false);
  if (chance(r, 0.1)) b.model = 'models/x';
  unknownKey(r, b);
  return maybeWrong(r, b);
}

export function result(r: R): { res: ChatResult; req: ChatRequest } {
  const parts: Part[] = [];
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    const kind = pickOf(r, ['text', 'text', 'reasoning', 'tool-call', 'hosted-call', 'hosted-result', 'code']);
    if (kind === 'text')
      parts.push({
        type: 'text',
        text: pickOf(r, ['Hi', 'Kansai', '"a"']),
        ...(chance(r, 0.3)
          ? {
              citations: [
                { kind: 'url', url: 'https://a.example/x', title: 't', start: 0, end: 2 },
                { kind: 'file', fileId: 'f' },
              ],
            }
          : {}),
      });
    if (kind === 'reasoning')
      parts.push({
        type: 'reasoning',
        text: pickOf(r, ['', 'think']),
        origin: 'gemini',
        ...(chance(r, 0.5) ? { signature: 'CiQB' } : {}),
      });
    if (kind === 'tool-call')
      parts.push({ type: 'tool-call', id: pickOf(r, ['call_1', 'x']), name: 'get', args: '{"a":1}' });
    if (kind === 'hosted-call')
      parts.push({
        type: 'hosted-call',
        id: 'h1',
        tool: 'web_search',
        input: chance(r, 0.7) ? { query: 'kyoto' } : {},
      });
    if (kind === 'hosted-result')
      parts.push({
        type: 'hosted-result',
        callId: 'h1',
        tool: 'web_search',
        sources: [
          { url: 'https://b.example/p', ...(chance(r, 0.5) ? { title: 'B' } : {}) },
          { url: 'https://b.example/p' },
        ],
      } as Part);
    if (kind === 'code') parts.push({ type: 'code', language: 'python', code: 'print(1)' });
  }
  const usage = {
    inputTokens: Math.floor(r() * 100),
    outputTokens: 40,
    ...(chance(r, 0.5) ? { reasoningTokens: 12 } : {}),
    ...(chance(r, 0.3) ? { cacheReadTokens: 4 } : {}),
  };
  const res: ChatResult = {
    id: pickOf(r, ['resp-1', 'r2']),
    model: 'm',
    parts,
    finish: { reason: pickOf(r, ['stop', 'length', 'tool-calls', 'content-filter'] as const), raw: 'x' },
    usage,
    ...(chance(r, 0.1) ? { safety: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'LOW' }] } : {}),
    ...(chance(r, 0.05) ? { promptBlocked: { reason: 'SAFETY' } } : {}),
  };
  const req = {
    model: 'gemini-x',
    system: [],
    messages: [],
    tools: [],
    sampling: {},
    stream: false,
    extensions: chance(r, 0.1) ? { gemini: { responseMimeType: 'text/x.enum' } } : {},
    ...(chance(r, 0.3) ? { reasoning: { enabled: true, includeThoughts: true } } : {}),
  } as ChatRequest;
  return { res, req };
}
