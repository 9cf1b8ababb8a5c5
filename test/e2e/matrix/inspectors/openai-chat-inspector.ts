// What an OpenAI Chat Completions upstream received (https://platform.openai.com/docs/api-reference/chat/create).
import { bearer, body, dataUrl, header, isObj, list, textOf, type Inspector } from './inspector.ts';
import type { Json } from '../fixtures.ts';

export const openaiChatInspector: Inspector = {
  key: (r) => bearer(header(r, 'authorization')),
  model: (r) => String(body(r).model),
  system: (r) => {
    const first = list(body(r).messages)[0];
    return first?.role === 'system' || first?.role === 'developer' ? textOf(first.content) : undefined;
  },
  tools: (r) =>
    list(body(r).tools).map((t) => ({
      name: String((t.function as Json).name),
      schema: (t.function as Json).parameters,
    })),
  forcedTool: (r) => {
    const c = body(r).tool_choice;
    return isObj(c) && c.type === 'function' && isObj(c.function) ? String(c.function.name) : undefined;
  },
  historyCall: (r) => {
    const m = list(body(r).messages).find((x) => x.role === 'assistant' && Array.isArray(x.tool_calls));
    const call = list(m?.tool_calls)[0];
    const fn = isObj(call?.function) ? call.function : undefined;
    return call && fn
      ? { id: String(call.id), name: String(fn.name), args: JSON.parse(String(fn.arguments)) as Json }
      : undefined;
  },
  toolResult: (r) => {
    const m = list(body(r).messages).find((x) => x.role === 'tool');
    return m ? { callId: String(m.tool_call_id), text: textOf(m.content) } : undefined;
  },
  image: (r) => {
    const parts = list(body(r).messages).flatMap((m) => list(m.content));
    const img = parts.find((p) => p.type === 'image_url');
    return isObj(img?.image_url) ? dataUrl(img.image_url.url) : undefined;
  },
  outputSchema: (r) => {
    const f = body(r).response_format;
    return isObj(f) && f.type === 'json_schema' && isObj(f.json_schema) && isObj(f.json_schema.schema)
      ? f.json_schema.schema
      : undefined;
  },
  reasoning: (r) => {
    const e = body(r).reasoning_effort;
    return typeof e === 'string' ? { effort: e } : undefined;
  },
  // Chat Completions has no field for reasoning tokens in requests.
  replayedTokens: () => [],
};
