// Tools the provider would run itself (web search, code execution, ...) that the routed
// upstream's format cannot carry, and whatever else the client's decoder could not map
// (ChatRequest.unmapped). Per provider, `unsupported_tools: drop` (default) leaves such a tool out
// with a warning; `refuse` answers 400 naming it (docs/open-world.md). Forcing a tool that is left
// out always refuses: the client relies on that tool being called.
import type { WarningSink } from '../../../adapters/shared/chat-adapter.ts';
import { forcedBuiltinTool } from '../../../adapters/shared/forced-builtin-tool.ts';
import type { BuiltinTool, ChatRequest } from '../../ir/chat-request.ts';
import { invalid } from '../../ir/gateway-error.ts';

export type UnsupportedTools = 'drop' | 'refuse';

/** The request as the provider can take it; throws a 400 where the policy or a forced tool says so. */
export function applyHostedToolPolicy(
  request: ChatRequest,
  provider: string,
  carried: ReadonlySet<BuiltinTool['kind']>,
  policy: UnsupportedTools,
  warn: WarningSink,
): ChatRequest {
  const unmapped = request.unmapped;
  // Most requests left nothing unmapped and offer no built-in tool: nothing to warn, drop or refuse.
  if (!unmapped && !offersBuiltin(request.tools)) return request;
  for (const u of unmapped ?? []) {
    if (u.hostedTool && policy === 'refuse')
      throw invalid(u.field, `${u.field}: ${u.message.replace(/; dropped$/, '')} for provider '${provider}'`);
    warn(u.field, u.message);
  }
  const dropped = request.tools.filter((t): t is BuiltinTool => t.type === 'builtin' && !carried.has(t.kind));
  const choice = request.toolChoice;
  const offers = (name: string): boolean =>
    request.tools.some((t) => (t.type === 'function' ? t.name === name : t.name === name || t.kind === name));
  // A forced tool the decoder could not carry (a tool type without an IR kind) is not offered at all.
  if (choice?.type === 'tool' && request.unmapped?.some((u) => u.hostedTool) && !offers(choice.name)) {
    throw invalid(
      'tool_choice',
      `tool_choice: the forced tool '${choice.name}' is not available on provider '${provider}'`,
    );
  }
  if (dropped.length === 0) return request;
  const forced = forcedBuiltinTool(request.tools, request.toolChoice);
  request.tools.forEach((t, i) => {
    if (t.type !== 'builtin' || carried.has(t.kind)) return;
    const what = `the built-in tool '${t.name ?? t.kind}' is not available on provider '${provider}'`;
    // A forced tool is the client's tool_choice at fault: the tool alone would only be dropped.
    if (t === forced) throw invalid('tool_choice', `tool_choice: forces tools.${i}, but ${what}`);
    if (policy === 'refuse') throw invalid(`tools.${i}`, `tools.${i}: ${what}`);
    warn(`tools.${i}`, `${what}; dropped`);
  });
  const tools = request.tools.filter((t) => !dropped.includes(t as BuiltinTool));
  if (tools.length > 0 || request.toolChoice === undefined) return { ...request, tools };
  // No tool is left to choose from: a required call cannot be made, any other choice is moot.
  if (request.toolChoice.type === 'required')
    throw invalid(
      'tool_choice',
      `tool_choice: a tool call is required but no offered tool is available on provider '${provider}'`,
    );
  const { toolChoice: _moot, ...rest } = request;
  return { ...rest, tools };
}

function offersBuiltin(tools: ChatRequest['tools']): boolean {
  for (let i = 0; i < tools.length; i++) if (tools[i].type === 'builtin') return true;
  return false;
}
