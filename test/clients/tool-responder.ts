// The scripted "model" behind a real coding CLI: on a request that offers the wanted tool and holds
// no tool result yet it calls the tool; once the tool's output (carrying a marker only the tool
// can have produced) comes back, it answers with that marker; anything else (a CLI's background
// calls: titles, summaries) gets a short text. Works on all four upstream wire formats and Bedrock Converse, reading
// the request as the emulator recorded it.
import type { RecordedRequest, Reply, Responder } from '../emulators/emulator-types.ts';

import type { JsonObject as Json } from '../helpers/json.ts';
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A tool as offered upstream: its name and its JSON-schema parameters. */
export type OfferedTool = { name: string; parameters: Json };

/** The function tools a request offers, whichever of the four formats it is in. */
export function offeredTools(body: unknown): OfferedTool[] {
  // Bedrock Converse: toolConfig.tools[].toolSpec {name, inputSchema: {json}}.
  if (isObj(body) && isObj(body.toolConfig) && Array.isArray(body.toolConfig.tools))
    return body.toolConfig.tools.flatMap((t) =>
      isObj(t) && isObj(t.toolSpec) && typeof t.toolSpec.name === 'string'
        ? [
            {
              name: t.toolSpec.name,
              parameters:
                isObj(t.toolSpec.inputSchema) && isObj(t.toolSpec.inputSchema.json) ? t.toolSpec.inputSchema.json : {},
            },
          ]
        : [],
    );
  if (!isObj(body) || !Array.isArray(body.tools)) return [];
  const out: OfferedTool[] = [];
  const add = (name: unknown, params: unknown): void => {
    if (typeof name === 'string') out.push({ name, parameters: isObj(params) ? params : {} });
  };
  const visit = (tool: unknown): void => {
    if (!isObj(tool)) return;
    if (Array.isArray(tool.functionDeclarations)) {
      for (const d of tool.functionDeclarations) if (isObj(d)) add(d.name, d.parametersJsonSchema ?? d.parameters);
    } else if (isObj(tool.function))
      add(tool.function.name, tool.function.parameters); // Chat Completions
    else if (Array.isArray(tool.tools))
      for (const inner of tool.tools) visit(inner); // Responses namespace tool
    else if ('input_schema' in tool)
      add(tool.name, tool.input_schema); // Messages
    else if (tool.type === 'function') add(tool.name, tool.parameters); // Responses
  };
  for (const tool of body.tools) visit(tool);
  return out;
}

/** Words that only appear in a request carrying a tool's result, per format. */
const toolResultShapes = [
  '"tool_result"',
  '"role":"tool"',
  '"function_call_output"',
  '"functionResponse"',
  '"toolResult"',
];
export const holdsToolResult = (raw: string): boolean =>
  toolResultShapes.some((s) => raw.replace(/":\s+/g, '":').includes(s));

export type ToolPlan = {
  /** Picks the tool to call among those offered and its arguments; undefined: not offered here. */
  pick(tools: OfferedTool[]): { name: string; args: Json } | undefined;
  /** Text only the tool's output holds. */
  marker: string;
  /**
   * A step before the tool, asked first on every request that does not hold the marker yet
   * (Claude Code's deferred tools: ToolSearch loads WebSearch before it can be called).
   */
  prelude?(tools: OfferedTool[], raw: string): { name: string; args: Json } | undefined;
};

/** `leaks`: requests that held the marker before any tool result (the check would prove nothing). */
export type ToolResponder = Responder & { calls: number; resultsSeen: number; leaks: number };

export function toolResponder(plan: ToolPlan): ToolResponder {
  const respond = (req: RecordedRequest): Reply | undefined => {
    const raw = req.raw ?? JSON.stringify(req.body);
    const first = raw.includes(plan.marker) ? undefined : plan.prelude?.(offeredTools(req.body), raw);
    if (first) return { kind: 'tool', name: first.name, args: JSON.stringify(first.args) };
    if (holdsToolResult(raw)) {
      if (raw.includes(plan.marker)) {
        self.resultsSeen++;
        return { kind: 'text', text: `The tool reported ${plan.marker}.` };
      }
      return { kind: 'text', text: 'The tool result did not hold the marker.' };
    }
    if (raw.includes(plan.marker)) self.leaks++;
    const chosen = plan.pick(offeredTools(req.body));
    if (!chosen) return { kind: 'text', text: 'ok' };
    self.calls++;
    return { kind: 'tool', name: chosen.name, args: JSON.stringify(chosen.args) };
  };
  const self = Object.assign(respond, { calls: 0, resultsSeen: 0, leaks: 0 });
  return self;
}

/** The first offered tool whose name matches, or whose name ends with `.name` / `__name` (namespaced). */
export function findTool(tools: OfferedTool[], names: string[]): OfferedTool | undefined {
  for (const n of names) {
    const hit = tools.find(
      (t) => t.name === n || t.name.endsWith(`.${n}`) || t.name.endsWith(`__${n}`) || t.name.endsWith(`_${n}`),
    );
    if (hit) return hit;
  }
  return undefined;
}

/** The property names a tool's schema declares. */
export const propertiesOf = (t: OfferedTool): Json => (isObj(t.parameters.properties) ? t.parameters.properties : {});
