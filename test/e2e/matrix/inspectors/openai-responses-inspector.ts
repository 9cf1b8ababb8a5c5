// What an OpenAI Responses upstream received (https://platform.openai.com/docs/api-reference/responses/create).
import { bearer, body, dataUrl, header, isObj, jsonSchemaOf, list, type Inspector } from './inspector.ts';
import type { Json } from '../fixtures.ts';

const items = (b: Json): Json[] => (typeof b.input === 'string' ? [] : list(b.input));

export const openaiResponsesInspector: Inspector = {
  key: (r) => bearer(header(r, 'authorization')),
  model: (r) => String(body(r).model),
  system: (r) => {
    const i = body(r).instructions;
    return typeof i === 'string' ? i : undefined;
  },
  tools: (r) =>
    list(body(r).tools)
      .filter((t) => t.type === 'function')
      .map((t) => ({ name: String(t.name), schema: t.parameters })),
  forcedTool: (r) => {
    const c = body(r).tool_choice;
    return isObj(c) && c.type === 'function' ? String(c.name) : undefined;
  },
  historyCall: (r) => {
    const c = items(body(r)).find((i) => i.type === 'function_call');
    return c
      ? { id: String(c.call_id), name: String(c.name), args: JSON.parse(String(c.arguments)) as Json }
      : undefined;
  },
  toolResult: (r) => {
    const o = items(body(r)).find((i) => i.type === 'function_call_output');
    return o
      ? { callId: String(o.call_id), text: typeof o.output === 'string' ? o.output : JSON.stringify(o.output) }
      : undefined;
  },
  image: (r) => {
    const img = items(body(r))
      .flatMap((i) => list(i.content))
      .find((c) => c.type === 'input_image');
    return img ? dataUrl(img.image_url) : undefined;
  },
  outputSchema: (r) => {
    const t = body(r).text;
    return jsonSchemaOf(isObj(t) ? t.format : undefined);
  },
  reasoning: (r) => {
    const x = body(r).reasoning;
    return isObj(x) && typeof x.effort === 'string' ? { effort: x.effort } : undefined;
  },
  replayedTokens: (r) =>
    items(body(r)).flatMap((i) =>
      i.type === 'reasoning' && typeof i.encrypted_content === 'string' ? [i.encrypted_content] : [],
    ),
};
