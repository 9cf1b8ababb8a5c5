// A running polygate with one emulated upstream of each chat format, and what each upstream body
// says about where instructions landed: the leading system prompt, and every turn in order as
// `role: text`, so a test can assert that a mid-conversation instruction stayed in place (or was
// folded there) on every upstream (README "role: system message inside messages").
import OpenAI from 'openai';
import type { Test } from 'tap';
import type { Emulator } from '../emulators/emulator-types.ts';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY, type RunningGateway } from '../helpers/start-gateway.ts';

import type { Json } from '../helpers/json.ts';
export type Upstream = 'anthropic' | 'chat' | 'responses' | 'gemini';
export const upstreams: readonly Upstream[] = ['anthropic', 'chat', 'responses', 'gemini'];

/** Client model name routed to each upstream. */
export const modelFor = (u: Upstream): string => `sm-${u}`;

/**
 * The gateway, its emulators, an OpenAI SDK client of it (both suites' clients are OpenAI's), and
 * what upstream `u` was sent last: the body (`lastSent`), and where its instructions landed (`landedOn`).
 */
export async function startSystemMessageUpstreams(t: Test): Promise<{
  gw: RunningGateway;
  emulators: Record<Upstream, Emulator>;
  client: OpenAI;
  lastSent(u: Upstream): Json;
  landedOn(u: Upstream): string[];
}> {
  const { gw, up } = await gatewayWithEmulators(t, {
    upstreams: { anthropic: 'anthropic', chat: 'chat', responses: 'responses', gemini: 'gemini' },
    models: Object.fromEntries(
      upstreams.map((u) => [modelFor(u), { routes: [{ provider: u, model: `${u}-upstream-1` }] }]),
    ),
  });
  return {
    gw,
    emulators: up,
    client: new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    lastSent: (u) => lastBody(up[u]),
    landedOn: (u) => landed(u, lastBody(up[u])),
  };
}

/** Anthropic and Gemini have no mid-conversation system message: polygate folds it and says so. */
export function warnsOfFold(t: Pick<Test, 'match' | 'notMatch'>, u: Upstream, headers: Headers): void {
  const warnings = headers.get('x-polygate-warnings') ?? '';
  if (u === 'anthropic' || u === 'gemini')
    t.match(warnings, /no mid-conversation system message.*folded/, 'the fold is named');
  else t.notMatch(warnings, /system/, 'nothing to warn about');
}

export const lastBody = (emu: Emulator): Json => emu.requests[emu.requests.length - 1]?.body as Json;

const joined = (texts: unknown[]): string => texts.filter((x): x is string => typeof x === 'string').join('|');

/** What an upstream body says, in order: `system: …` for its top-level instructions, then one entry per message/item/part. */
export function landed(u: Upstream, body: Json): string[] {
  switch (u) {
    case 'anthropic': {
      const system =
        typeof body.system === 'string' ? body.system : joined((body.system ?? []).map((b: Json) => b.text));
      const turns = (body.messages as Json[]).flatMap((m) =>
        typeof m.content === 'string'
          ? [`${m.role}: ${m.content}`]
          : (m.content as Json[]).map(
              (b) =>
                `${m.role}: ${b.type === 'text' ? b.text : b.type === 'tool_use' ? `call ${b.name}` : b.type === 'tool_result' ? `result ${b.tool_use_id}` : b.type}`,
            ),
      );
      return [...(system ? [`system: ${system}`] : []), ...turns];
    }
    case 'chat':
      return (body.messages as Json[]).map((m) => {
        const text = typeof m.content === 'string' ? m.content : joined((m.content ?? []).map((p: Json) => p.text));
        if (m.role === 'tool') return `tool: result ${m.tool_call_id}`;
        if (m.tool_calls) return `${m.role}: call ${m.tool_calls.map((c: Json) => c.function.name).join(',')}`;
        return `${m.role}: ${text}`;
      });
    case 'responses': {
      const items = (body.input as Json[]).map((i) => {
        if (i.type === 'function_call') return `function_call: call ${i.name}`;
        if (i.type === 'function_call_output') return `function_call_output: result ${i.call_id}`;
        return `${i.role}: ${typeof i.content === 'string' ? i.content : joined(i.content.map((c: Json) => c.text))}`;
      });
      return [...(body.instructions ? [`instructions: ${body.instructions}`] : []), ...items];
    }
    case 'gemini': {
      const system = body.systemInstruction ? joined(body.systemInstruction.parts.map((p: Json) => p.text)) : '';
      const parts = (body.contents as Json[]).flatMap((c) =>
        (c.parts as Json[]).map(
          (p) =>
            `${c.role}: ${p.text ?? (p.functionCall ? `call ${p.functionCall.name}` : p.functionResponse ? `result ${p.functionResponse.name}` : '?')}`,
        ),
      );
      return [...(system ? [`system: ${system}`] : []), ...parts];
    }
  }
}

/** The text a folded instruction becomes on an upstream without mid-conversation system messages. */
export const folded = (text: string): string => `<system-instruction>\n${text}\n</system-instruction>`;

/**
 * Where both suites' conversation (hi, a call of `lookup` and its result, the instruction `Mid.`,
 * go) lands after the system prompt on the upstreams that fold a mid-conversation instruction.
 */
export const foldedTurns = {
  anthropic: ['user: hi', 'assistant: call lookup', 'user: result call_1', `user: ${folded('Mid.')}`, 'user: go'],
  gemini: ['user: hi', 'model: call lookup', 'user: result lookup', `user: ${folded('Mid.')}`, 'user: go'],
};
