import { randomUUID } from 'node:crypto';
import type { ChatRequest, FunctionTool, Part } from '../ir/chat-request.ts';
import type { ChatFinish, ChatResult, Usage } from '../ir/chat-result.ts';
import { invalid } from '../ir/gateway-error.ts';
import type { StreamEvent } from '../ir/stream-event.ts';
import type { CallOptions, ChatProvider } from './chat-provider.ts';
import { sampleFromSchema } from './sample-from-schema.ts';
import { forcedBuiltinTool } from '../../adapters/shared/forced-builtin-tool.ts';

/**
 * Built-in `echo`: answers with the last user text, streams it word by word, and calls a tool
 * with schema-valid arguments when the request forces one (DESIGN.md). No network, so it serves
 * smoke tests, client CI and overhead benchmarks on a machine without upstream keys.
 */
export class EchoProvider implements ChatProvider {
  readonly name: string;
  readonly type = 'echo';
  readonly wireFormat = undefined;
  constructor(name: string) {
    this.name = name;
  }

  async complete(request: ChatRequest, upstreamModel: string, opts: CallOptions): Promise<ChatResult> {
    dropBuiltinTools(request, this.name, opts.warn);
    return answer(request, upstreamModel);
  }

  async openStream(request: ChatRequest, upstreamModel: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>> {
    dropBuiltinTools(request, this.name, opts.warn);
    return streamOf(answer(request, upstreamModel), opts.signal);
  }
}

/**
 * Echo runs no web search, code or computer. An offered tool is not used by itself, so it is
 * dropped with a warning (docs/open-world.md); forcing one would promise an answer echo cannot
 * give: that stays a 400.
 */
function dropBuiltinTools(request: ChatRequest, provider: string, warn: CallOptions['warn']): void {
  const forced = forcedBuiltinTool(request.tools, request.toolChoice);
  if (forced) throw invalid('tool_choice', `tool_choice: the built-in tool '${forced.name ?? forced.kind}' is not supported by provider '${provider}' (echo)`);
  request.tools.forEach((t, i) => {
    if (t.type === 'builtin') warn(`tools[${i}]`, `the built-in tool '${t.name ?? t.kind}' is not supported by provider '${provider}' (echo); dropped`);
  });
}

function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== 'user') continue;
    const texts = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : p.type === 'tool-result' ? p.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])) : []));
    if (texts.length > 0) return texts.join('\n');
  }
  return '';
}

function forcedTool(request: ChatRequest): FunctionTool | undefined {
  const fns = request.tools.filter((t): t is FunctionTool => t.type === 'function');
  const c = request.toolChoice;
  if (!c) return undefined;
  switch (c.type) {
    case 'tool':
      return fns.find((t) => t.name === c.name);
    case 'required':
      return fns[0];
    case 'allowed':
      return c.mode === 'required' ? fns.find((t) => c.names.includes(t.name)) : undefined;
    case 'auto':
    case 'none':
      return undefined;
    default: {
      const never: never = c;
      return never;
    }
  }
}

/** Rough token estimate (4 characters a token): echo has no tokenizer of its own to be exact about. */
const estimate = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

function answer(request: ChatRequest, model: string): ChatResult {
  const text = lastUserText(request) || 'echo';
  const parts: Part[] = [];
  if (request.reasoning?.enabled) parts.push({ type: 'reasoning', text: `The user wrote ${text.length} characters; echo them.`, origin: 'echo' });
  const tool = forcedTool(request);
  let finish: ChatFinish;
  if (tool) {
    parts.push({ type: 'tool-call', id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: tool.name, args: JSON.stringify(sampleFromSchema(tool.parameters)) });
    finish = { reason: 'tool-calls', raw: 'tool_calls' };
  } else {
    const out = request.output;
    const body = out?.type === 'json-schema' ? JSON.stringify(sampleFromSchema(out.schema)) : out?.type === 'json' ? JSON.stringify({ echo: text }) : text;
    parts.push({ type: 'text', text: body });
    finish = { reason: 'stop', raw: 'stop' };
  }
  const inputChars = JSON.stringify(request.messages).length + request.system.reduce((n, p) => n + p.text.length, 0);
  const outText = parts.map((p) => (p.type === 'text' ? p.text : p.type === 'tool-call' ? p.args : p.type === 'reasoning' ? p.text : '')).join('');
  const reasoningTokens = parts.some((p) => p.type === 'reasoning') ? estimate((parts[0] as { text: string }).text) : undefined;
  const usage: Usage = { inputTokens: estimate(' '.repeat(inputChars)), outputTokens: estimate(outText), ...(reasoningTokens ? { reasoningTokens } : {}) };
  return { id: `echo_${randomUUID().replace(/-/g, '')}`, model, parts, finish, usage };
}

/** Replays a result as a stream: text word by word, tool arguments in two pieces. */
async function* streamOf(result: ChatResult, signal: AbortSignal): AsyncIterable<StreamEvent> {
  yield { type: 'start', id: result.id, model: result.model, usage: { inputTokens: result.usage.inputTokens } };
  let index = 0;
  for (const p of result.parts) {
    if (signal.aborted) return;
    if (p.type === 'text') {
      yield { type: 'text-start', index };
      for (const word of p.text.match(/\S+\s*|\s+/g) ?? []) yield { type: 'text-delta', index, text: word };
      yield { type: 'text-end', index };
    } else if (p.type === 'reasoning') {
      yield { type: 'reasoning-start', index, origin: 'echo' };
      yield { type: 'reasoning-delta', index, text: p.text };
      yield { type: 'reasoning-end', index };
    } else if (p.type === 'tool-call') {
      yield { type: 'tool-input-start', index, id: p.id, name: p.name };
      const half = Math.floor(p.args.length / 2);
      yield { type: 'tool-input-delta', index, json: p.args.slice(0, half) };
      yield { type: 'tool-input-delta', index, json: p.args.slice(half) };
      yield { type: 'tool-input-end', index };
    }
    index++;
  }
  yield { type: 'finish', finish: result.finish, usage: result.usage };
}
