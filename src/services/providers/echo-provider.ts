import { randomUUID } from 'node:crypto';
import type { ChatRequest, FunctionTool, Part } from '../../ir/chat-request.ts';
import type { ChatFinish, ChatResult, Usage } from '../../ir/chat-result.ts';
import { invalid } from '../../ir/gateway-error.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import type { CallOptions, ChatProvider } from './chat-provider.ts';
import { conversationChars } from '../tokens/estimate-tokens.ts';
import { SampleTooLarge, sampleFromSchema } from './sample-from-schema.ts';
import { nextTurn } from '../../infra/http/loop-turns.ts';

/**
 * Built-in `echo`: answers with the last user text, streams it word by word, and calls a tool
 * with schema-valid arguments when the request forces one (docs/architecture.md). No network, so it serves
 * smoke tests, client CI and overhead benchmarks on a machine without upstream keys.
 */
export class EchoProvider implements ChatProvider {
  readonly name: string;
  readonly type = 'echo';
  readonly wireFormat = undefined;
  constructor(name: string) {
    this.name = name;
  }

  // Built-in tools never reach echo: the pipeline drops (or refuses) every hosted tool an
  // upstream lacks before the call, and echo runs none (src/families/chat/hosted-tool-policy.ts).
  async complete(request: ChatRequest, upstreamModel: string, _opts: CallOptions): Promise<ChatResult> {
    return answer(request, upstreamModel);
  }

  async openStream(
    request: ChatRequest,
    upstreamModel: string,
    opts: CallOptions,
  ): Promise<AsyncIterable<StreamEvent>> {
    return streamOf(answer(request, upstreamModel), opts.signal);
  }
}

function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== 'user') continue;
    const texts = m.parts.flatMap((p) =>
      p.type === 'text'
        ? [p.text]
        : p.type === 'tool-result'
          ? p.content.flatMap((c) => (c.type === 'text' ? [c.text] : []))
          : [],
    );
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
const estimate = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

/**
 * Echo's answer. Its text is only referenced (the client's own text, or a schema sample bounded
 * by src/services/providers/sample-from-schema.ts): a stream cuts it into words as the client reads.
 */
function answer(request: ChatRequest, model: string): ChatResult {
  const text = lastUserText(request) || 'echo';
  const parts: Part[] = [];
  if (request.reasoning?.enabled)
    parts.push({ type: 'reasoning', text: `The user wrote ${text.length} characters; echo them.`, origin: 'polygate' });
  const tool = forcedTool(request);
  let finish: ChatFinish;
  if (tool) {
    const args = JSON.stringify(
      sample(tool.parameters, `tools[${request.tools.indexOf(tool)}]`, `the parameters schema of tool '${tool.name}'`),
    );
    parts.push({ type: 'tool-call', id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: tool.name, args });
    finish = { reason: 'tool-calls', raw: 'tool_calls' };
  } else {
    const out = request.output;
    const body =
      out?.type === 'json-schema'
        ? JSON.stringify(sample(out.schema, 'json_schema', `the JSON schema '${out.name}' of the output format`))
        : out?.type === 'json'
          ? JSON.stringify({ echo: text })
          : text;
    parts.push({ type: 'text', text: body });
    finish = { reason: 'stop', raw: 'stop' };
  }
  // Counted, not serialized: the conversation may be megabytes.
  const inputChars = conversationChars(request.messages) + request.system.reduce((n, p) => n + p.text.length, 0);
  const reasoning = parts.find((p) => p.type === 'reasoning');
  const usage: Usage = {
    inputTokens: estimate(inputChars),
    outputTokens: estimate(conversationChars([{ role: 'assistant', parts }])),
    ...(reasoning ? { reasoningTokens: estimate(reasoning.text.length) } : {}),
  };
  return { id: `echo_${randomUUID().replace(/-/g, '')}`, model, parts, finish, usage };
}

/** A schema sample, or a 400 naming the field when the smallest valid value is too large to generate. */
function sample(schema: unknown, param: string, what: string): unknown {
  try {
    return sampleFromSchema(schema);
  } catch (e) {
    if (e instanceof SampleTooLarge) throw invalid(param, `${param}: ${what} cannot be answered by echo: ${e.message}`);
    throw e;
  }
}

/** Words a stream sends in one turn. */
const yieldEvery = 256;

// Echo streams take turns with every other heavy step, one per turn of the event loop (src/infra/http/loop-turns.ts).

/**
 * Replays a result as a stream: text word by word, tool arguments in two pieces. Words are cut as
 * the consumer pulls them (pipeStream pulls only when the client's socket drained), so a client
 * that stops reading holds one word, not an array of all of them.
 */
async function* streamOf(result: ChatResult, signal: AbortSignal): AsyncIterable<StreamEvent> {
  yield { type: 'start', id: result.id, model: result.model, usage: { inputTokens: result.usage.inputTokens } };
  let index = 0;
  for (const p of result.parts) {
    if (signal.aborted) return;
    if (p.type === 'text') {
      yield { type: 'text-start', index };
      const words = /\S+\s*|\s+/g;
      // A socket that accepts every write never makes pipeStream wait, and a stream with no
      // upstream I/O would then hold the event loop until its whole answer is written: every
      // so many words, give other requests (and /healthz) their turn.
      let sent = 0;
      for (let m = words.exec(p.text); m !== null; m = words.exec(p.text)) {
        if (signal.aborted) return;
        // Before the first word too: streams that start together (their requests' bodies ended in
        // one poll of the loop) would otherwise each send their first 256 words in that same turn.
        if (sent % yieldEvery === 0) await nextTurn();
        if (signal.aborted) return;
        yield { type: 'text-delta', index, text: m[0] };
        sent++;
      }
      yield { type: 'text-end', index };
    } else if (p.type === 'reasoning') {
      yield { type: 'reasoning-start', index, origin: 'polygate' };
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
