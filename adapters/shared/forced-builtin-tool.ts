// A `tool_choice` that names a hosted tool names it in the client's words: Responses by its type
// (`web_search_preview`), Messages by its tool name (`web_search`). Both are resolved here against
// the request's built-in tools, so each upstream encoder can say what forcing that tool means in
// its own format.
import type { BuiltinTool, Tool, ToolChoice } from '../../src/ir/chat-request.ts';

export function forcedBuiltinTool(tools: Tool[], choice: ToolChoice | undefined): BuiltinTool | undefined {
  if (choice?.type !== 'tool') return undefined;
  return tools.find(
    (t): t is BuiltinTool => t.type === 'builtin' && (t.name === choice.name || t.kind === choice.name),
  );
}
