// What an Anthropic Messages upstream received (https://docs.anthropic.com/en/api/messages).
import { body, header, isObj, jsonSchemaOf, list, textOf, type Inspector } from './inspector.ts';
import type { Json } from '../fixtures.ts';

const blocks = (b: Json): Array<{ role: unknown; block: Json }> =>
  list(b.messages).flatMap((m) =>
    typeof m.content === 'string' ? [] : list(m.content).map((block) => ({ role: m.role, block })),
  );

export const anthropicInspector: Inspector = {
  key: (r) => header(r, 'x-api-key'),
  model: (r) => String(body(r).model),
  system: (r) => {
    const s = body(r).system;
    return s === undefined ? undefined : textOf(s);
  },
  tools: (r) => list(body(r).tools).map((t) => ({ name: String(t.name), schema: t.input_schema })),
  forcedTool: (r) => {
    const c = body(r).tool_choice;
    return isObj(c) && c.type === 'tool' ? String(c.name) : undefined;
  },
  historyCall: (r) => {
    const u = blocks(body(r)).find((x) => x.block.type === 'tool_use')?.block;
    return u ? { id: String(u.id), name: String(u.name), args: u.input as Json } : undefined;
  },
  toolResult: (r) => {
    const t = blocks(body(r)).find((x) => x.role === 'user' && x.block.type === 'tool_result')?.block;
    return t ? { callId: String(t.tool_use_id), text: textOf(t.content) } : undefined;
  },
  image: (r) => {
    const i = blocks(body(r)).find((x) => x.block.type === 'image')?.block;
    const s = isObj(i?.source) ? i.source : undefined;
    return s?.type === 'base64' ? { mediaType: String(s.media_type), data: String(s.data) } : undefined;
  },
  outputSchema: (r) => {
    const oc = body(r).output_config;
    return jsonSchemaOf(isObj(oc) ? oc.format : undefined);
  },
  reasoning: (r) => {
    const t = body(r).thinking;
    return isObj(t) && t.type === 'enabled' ? { budget: Number(t.budget_tokens) } : undefined;
  },
  replayedTokens: (r) =>
    blocks(body(r)).flatMap((x) =>
      x.block.type === 'thinking' && typeof x.block.signature === 'string' ? [x.block.signature] : [],
    ),
};
