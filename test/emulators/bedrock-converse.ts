// Bedrock's Converse API as the emulator answers it: the request checked the way Bedrock
// validates it (turns alternate from a user turn, each content block holds exactly one known
// member, a toolResult answers an earlier toolUse, tools have a JSON input schema), the answer
// built from the scripted reply (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html).
import type { ServerResponse } from 'node:http';
import { assertNever } from '../../src/ir/stream-event.ts';
import { bedrockError, converseFrame } from './bedrock-upstream.ts';
import { sendJson, type Json, isObject, words, tokens } from './emulator-server.ts';
import type { Reply } from './emulator-types.ts';
import { reasoningBeforeTool, type IssuedReasoning } from './converse-thinking.ts';

const blockKinds = ['text', 'image', 'document', 'toolUse', 'toolResult', 'reasoningContent', 'cachePoint'];

/** Bedrock's ValidationException message for a malformed request, or undefined. */
export function converseProblem(body: unknown): string | undefined {
  if (!isObject(body) || !Array.isArray(body.messages) || body.messages.length === 0)
    return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  const toolUses = new Set<string>();
  let expected = 'user';
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m) || m.role !== expected)
      return i === 0
        ? 'A conversation must start with a user message. Try again with a conversation that starts with a user message.'
        : 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    expected = expected === 'user' ? 'assistant' : 'user';
    if (!Array.isArray(m.content) || m.content.length === 0) return `messages.${i}.content: must not be empty`;
    for (const b of m.content) {
      const keys = isObject(b) ? Object.keys(b) : [];
      if (keys.length !== 1 || !blockKinds.includes(keys[0]))
        return `1 validation error detected: Value at 'messages.${i}.member.content' failed to satisfy constraint: each block has exactly one member`;
      const blk = b as Json;
      if (isObject(blk.toolUse)) toolUses.add(String(blk.toolUse.toolUseId));
      if (isObject(blk.toolResult) && !toolUses.has(String(blk.toolResult.toolUseId)))
        return 'The toolResult blocks at messages.' + i + ' do not match any toolUse blocks of the previous turn.';
      if (isObject(blk.image) && !(isObject(blk.image.source) && typeof blk.image.source.bytes === 'string'))
        return `messages.${i}: image.source.bytes is required`;
    }
  }
  if (isObject(body.toolConfig)) {
    const tools = body.toolConfig.tools;
    if (!Array.isArray(tools) || tools.length === 0) return 'toolConfig.tools must not be empty';
    for (const t of tools)
      if (
        !isObject(t) ||
        !isObject(t.toolSpec) ||
        !isObject(t.toolSpec.inputSchema) ||
        !isObject(t.toolSpec.inputSchema.json)
      )
        return 'toolConfig.tools: each tool needs toolSpec.inputSchema.json';
  }
  return undefined;
}

export function lastUserText(body: Json): string {
  const messages = body.messages as Json[];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    for (const b of m.content as Json[]) {
      if (typeof b.text === 'string') return b.text;
      if (isObject(b.toolResult) && Array.isArray(b.toolResult.content)) {
        const t = (b.toolResult.content as Json[]).find((c) => typeof c.text === 'string');
        if (t) return t.text as string;
      }
    }
  }
  return 'echo';
}

export function converseAnswer(res: ServerResponse, reply: Reply, body: Json, issued: IssuedReasoning): void {
  let content: Json[];
  let stopReason = 'end_turn';
  switch (reply.kind) {
    case 'error':
      return bedrockError(
        res,
        reply.status,
        reply.status === 429
          ? 'ThrottlingException'
          : reply.status >= 500
            ? 'InternalServerException'
            : 'ValidationException',
        reply.message ?? 'error',
      );
    case 'cut':
      res.destroy();
      return;
    case 'text':
      content = [{ text: reply.text }];
      break;
    case 'tool': {
      const r = reasoningBeforeTool(body, issued);
      content = [
        ...(r ? [{ reasoningContent: { reasoningText: r } }] : []),
        ...(reply.text ? [{ text: reply.text }] : []),
        {
          toolUse: {
            toolUseId: reply.id ?? 'tooluse_emulator01',
            name: reply.name,
            input: JSON.parse(reply.args) as unknown,
          },
        },
      ];
      stopReason = 'tool_use';
      break;
    }
    case 'thinking':
      issue(reply, issued);
      content = [
        { reasoningContent: { reasoningText: { text: reply.thinking, signature: reply.signature } } },
        ...(reply.redacted ? [{ reasoningContent: { redactedContent: reply.redacted } }] : []),
        { text: reply.text },
      ];
      break;
    case 'stop':
      content = [{ text: reply.text }];
      stopReason = reply.word;
      break;
    default:
      return assertNever(reply, 'reply');
  }
  const input = tokens(JSON.stringify(body.messages));
  const output = tokens(JSON.stringify(content));
  const answer = {
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
    metrics: { latencyMs: 12 },
  };
  sendJson(res, 200, answer, { 'x-amzn-requestid': crypto.randomUUID() });
}

/** A thinking reply's signature and redacted bytes become valid in later turns. */
function issue(reply: Extract<Reply, { kind: 'thinking' }>, issued: IssuedReasoning): void {
  issued.add(reply.signature);
  if (reply.redacted) issued.add(reply.redacted);
}

/** ConverseStream: messageStart, the blocks' deltas (a tool use opens with contentBlockStart), messageStop, metadata. */
export function converseStreamAnswer(res: ServerResponse, reply: Reply, body: Json, issued: IssuedReasoning): void {
  if (reply.kind === 'error' || reply.kind === 'cut') return converseAnswer(res, reply, body, issued);
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': crypto.randomUUID() });
  const frames: Uint8Array[] = [converseFrame('messageStart', { role: 'assistant' })];
  let block = 0;
  let out = '';
  const reasoning = (t: string, signature: string): void => {
    frames.push(
      converseFrame('contentBlockDelta', { contentBlockIndex: block, delta: { reasoningContent: { text: t } } }),
      converseFrame('contentBlockDelta', { contentBlockIndex: block, delta: { reasoningContent: { signature } } }),
      converseFrame('contentBlockStop', { contentBlockIndex: block++ }),
    );
  };
  const text = (t: string): void => {
    for (const w of words(t))
      frames.push(converseFrame('contentBlockDelta', { contentBlockIndex: block, delta: { text: w } }));
    frames.push(converseFrame('contentBlockStop', { contentBlockIndex: block++ }));
    out += t;
  };
  let stopReason = 'end_turn';
  switch (reply.kind) {
    case 'text':
      text(reply.text);
      break;
    case 'stop':
      text(reply.text);
      stopReason = reply.word;
      break;
    case 'thinking':
      issue(reply, issued);
      reasoning(reply.thinking, reply.signature);
      // Redacted reasoning comes whole, in one delta of its own block.
      if (reply.redacted)
        frames.push(
          converseFrame('contentBlockDelta', {
            contentBlockIndex: block,
            delta: { reasoningContent: { redactedContent: reply.redacted } },
          }),
          converseFrame('contentBlockStop', { contentBlockIndex: block++ }),
        );
      text(reply.text);
      break;
    case 'tool': {
      const r = reasoningBeforeTool(body, issued);
      if (r) reasoning(r.text, r.signature);
      if (reply.text) text(reply.text);
      const toolUse = { toolUseId: reply.id ?? 'tooluse_emulator01', name: reply.name };
      frames.push(converseFrame('contentBlockStart', { contentBlockIndex: block, start: { toolUse } }));
      for (const piece of reply.argChunks ?? [reply.args])
        frames.push(
          converseFrame('contentBlockDelta', { contentBlockIndex: block, delta: { toolUse: { input: piece } } }),
        );
      frames.push(converseFrame('contentBlockStop', { contentBlockIndex: block++ }));
      out += reply.args;
      stopReason = 'tool_use';
      break;
    }
    default:
      return assertNever(reply, 'reply');
  }
  const input = tokens(JSON.stringify(body.messages));
  const output = tokens(out);
  frames.push(
    converseFrame('messageStop', { stopReason }),
    converseFrame('metadata', {
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
      metrics: { latencyMs: 9 },
    }),
  );
  for (const f of frames) res.write(f);
  res.end();
}
