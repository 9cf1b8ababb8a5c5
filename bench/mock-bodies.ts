// Precomputed answers of the mock upstream in each wire format, byte for byte as the real services
// frame them, so serving a request costs a buffer lookup and a socket write, never a
// JSON.stringify: the mock must not be what the benchmark measures.
import type { WireFormat } from './wire-requests.ts';

/** One answer: the whole JSON body, and the stream as the writes that carry its chunks. */
export type MockAnswer = {
  json: Buffer;
  contentType: string;
  /** Exactly `chunks` writes; the protocol's opening and closing frames ride on the first and last. */
  stream: Buffer[];
  /** Chat Completions sends a usage chunk only when `stream_options.include_usage` is set. */
  streamWithUsage?: Buffer[];
};

const vocabulary =
  'Late March often brings early cherry blossoms to Kyoto, though peak bloom varies by year; reserve Haruka seats online a few days ahead, especially for a group of four travelling together.'.split(
    ' ',
  );

/** `n` chunks of text, one word (and its space) each, as a model streams tokens. */
export function answerChunks(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${vocabulary[i % vocabulary.length]} `);
}

const tokens = (s: string): number => Math.max(1, Math.ceil(s.length / 4));
const sse = (event: string | undefined, data: unknown): string =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** Groups frames into `chunks` writes: opening frames go with the first chunk, closing with the last. */
function writes(open: string, chunkFrames: string[], close: string): Buffer[] {
  return chunkFrames.map((f, i) =>
    Buffer.from((i === 0 ? open : '') + f + (i === chunkFrames.length - 1 ? close : '')),
  );
}

const inputTokens = 180;

// https://docs.anthropic.com/en/api/messages and .../build-with-claude/streaming
function messages(model: string, chunks: string[]): MockAnswer {
  const text = chunks.join('');
  const id = 'msg_01BenchMockUpstream000000';
  const usage = {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: tokens(text),
    service_tier: 'standard',
  };
  const json = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage,
  };
  const open =
    sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }) +
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
    sse('ping', { type: 'ping' });
  const deltas = chunks.map((t) =>
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }),
  );
  const close =
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: tokens(text) },
    }) +
    sse('message_stop', { type: 'message_stop' });
  return {
    json: Buffer.from(JSON.stringify(json)),
    contentType: 'application/json',
    stream: writes(open, deltas, close),
  };
}

// https://platform.openai.com/docs/api-reference/chat/object and .../chat-streaming
function chat(model: string, chunks: string[]): MockAnswer {
  const text = chunks.join('');
  const base = {
    id: 'chatcmpl-BenchMockUpstream0000000000000',
    created: 1_760_000_000,
    model,
    service_tier: 'default',
    system_fingerprint: 'fp_bench_mock',
  };
  const usage = {
    prompt_tokens: inputTokens,
    completion_tokens: tokens(text),
    total_tokens: inputTokens + tokens(text),
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
  const json = {
    ...base,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage,
  };
  const frames = (withUsage: boolean): Buffer[] => {
    const chunk = (delta: object, finish: string | null = null): string =>
      sse(undefined, {
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(withUsage ? { usage: null } : {}),
      });
    const open = chunk({ role: 'assistant', content: '', refusal: null });
    const close =
      chunk({}, 'stop') +
      (withUsage ? sse(undefined, { ...base, object: 'chat.completion.chunk', choices: [], usage }) : '') +
      'data: [DONE]\n\n';
    return writes(
      open,
      chunks.map((t) => chunk({ content: t })),
      close,
    );
  };
  return {
    json: Buffer.from(JSON.stringify(json)),
    contentType: 'application/json',
    stream: frames(false),
    streamWithUsage: frames(true),
  };
}

// https://platform.openai.com/docs/api-reference/responses-streaming
function responses(model: string, chunks: string[]): MockAnswer {
  const text = chunks.join('');
  const id = 'resp_bench0mock0upstream000000000000000000000000';
  const itemId = 'msg_bench0mock0upstream00000000000000000000000000';
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: tokens(text),
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + tokens(text),
  };
  const part = { type: 'output_text', annotations: [], logprobs: [], text };
  const item = { id: itemId, type: 'message', status: 'completed', content: [part], role: 'assistant' };
  const envelope = (status: string, output: unknown[], u: unknown): object => ({
    id,
    object: 'response',
    created_at: 1_760_000_000,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: 256,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: false,
    temperature: 0.7,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: u,
    user: null,
    metadata: {},
  });
  let seq = 0;
  const frame = (type: string, fields: object): string => sse(type, { type, ...fields, sequence_number: seq++ });
  const at = { item_id: itemId, output_index: 0 };
  const open =
    frame('response.created', { response: envelope('in_progress', [], null) }) +
    frame('response.in_progress', { response: envelope('in_progress', [], null) }) +
    frame('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }) +
    frame('response.content_part.added', { ...at, content_index: 0, part: { ...part, text: '' } });
  const deltas = chunks.map((delta) =>
    frame('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [], obfuscation: 'a1b2' }),
  );
  const close =
    frame('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] }) +
    frame('response.content_part.done', { ...at, content_index: 0, part }) +
    frame('response.output_item.done', { output_index: 0, item }) +
    frame('response.completed', { response: envelope('completed', [item], usage) });
  return {
    json: Buffer.from(JSON.stringify(envelope('completed', [item], usage))),
    contentType: 'application/json',
    stream: writes(open, deltas, close),
  };
}

// https://ai.google.dev/api/generate-content; `?alt=sse` frames end in CRLF CRLF as Google sends them.
function gemini(model: string, chunks: string[]): MockAnswer {
  const text = chunks.join('');
  const meta = (out: number): object => ({
    promptTokenCount: inputTokens,
    candidatesTokenCount: out,
    totalTokenCount: inputTokens + out,
  });
  const response = (t: string, last: boolean, out: number): object => ({
    candidates: [
      { content: { parts: [{ text: t }], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 },
    ],
    usageMetadata: meta(out),
    modelVersion: model,
    responseId: 'benchMockUpstream0000000',
  });
  const frames = chunks.map(
    (t, i) =>
      `data: ${JSON.stringify(response(t, i === chunks.length - 1, tokens(chunks.slice(0, i + 1).join(''))))}\r\n\r\n`,
  );
  return {
    json: Buffer.from(JSON.stringify(response(text, true, tokens(text)), null, 2)),
    contentType: 'application/json; charset=UTF-8',
    stream: writes('', frames, ''),
  };
}

const builders: Record<WireFormat, (model: string, chunks: string[]) => MockAnswer> = {
  messages,
  chat,
  responses,
  gemini,
};

export function buildMockAnswers(chunkCount: number): Record<WireFormat, MockAnswer> {
  const chunks = answerChunks(Math.max(1, chunkCount));
  return {
    messages: builders.messages('claude-bench-mock', chunks),
    chat: builders.chat('gpt-bench-mock', chunks),
    responses: builders.responses('gpt-bench-mock', chunks),
    gemini: builders.gemini('gemini-bench-mock', chunks),
  };
}
