// IR stream events → Chat Completions stream frames for a client: `data: {chat.completion.chunk}`
// lines without event names, a finish chunk, the usage chunk when asked for, then `data: [DONE]`
// (https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { Usage } from '../../src/ir/chat-result.ts';
import type { GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';
import type { ClientStreamEncoder, SseFrame } from '../shared/chat-adapter.ts';
import { failedFinish } from '../shared/failed-finish.ts';
import { chatErrorBody } from './chat-error.ts';
import { chatReasonOfFinish, type ChatFinishReason } from './chat-finish-reason.ts';
import { encodeChatUsage } from './chat-usage.ts';
import { ownExtensions } from '../shared/format-extensions.ts';
import { chatCompletionId } from './encode-chat-result.ts';

type Delta = Record<string, unknown>;

/** What follows a text chunk's content (`usage: null` while the usage chunk is still to come). */
const tail = '},"logprobs":null,"finish_reason":null}]}';
const tailWithUsage = '},"logprobs":null,"finish_reason":null}],"usage":null}';

export class ChatStreamEncoder implements ClientStreamEncoder {
  readonly #model: string;
  readonly #created = Math.floor(Date.now() / 1000);
  /** `stream_options.include_usage`: only then does OpenAI send the usage chunk (and `usage: null` before it). */
  readonly #includeUsage: boolean;
  #id = 'chatcmpl-polygate';
  /** The role chunk was sent. */
  #started = false;
  /** `#contentFrame`'s text before the content, and the id it was made for. */
  #head: string | undefined;
  #headId = '';
  #over = false;
  /** IR part index → `tool_calls[].index`, which counts tool calls only, from 0. */
  #toolIndex = new Map<number, number>();
  /** A text chunk's frame list, one for the stream (ClientStreamEncoder: valid until the next push). */
  readonly #one: SseFrame[] = [];

  constructor(request: ChatRequest) {
    this.#model = request.model;
    this.#includeUsage = ownExtensions(request, 'openai-chat')['stream_options.include_usage'] === true;
  }

  push(e: StreamEvent): SseFrame[] {
    if (this.#over) return [];
    switch (e.type) {
      case 'start':
        return this.onStart(e.id);
      case 'text-delta':
        if (!this.#started) return this.onDelta({ content: e.text });
        this.#one[0] = this.#contentFrame(e.text);
        return this.#one;
      case 'refusal-delta':
        return this.onDelta({ refusal: e.text });
      case 'tool-input-start':
        return this.onToolStart(e.index, e.id, e.name);
      case 'tool-input-delta':
        return this.onToolDelta(e.index, e.json);
      case 'finish': {
        const failed = failedFinish(e.finish);
        return failed ? this.onError(failed) : this.onFinish(chatReasonOfFinish(e.finish), e.usage);
      }
      case 'error':
        return this.onError(e.error);
      // A hosted search's sources reach a Chat client as the answer's `annotations`.
      case 'text-citation':
        return e.citation.kind === 'url'
          ? this.onDelta({
              annotations: [
                {
                  type: 'url_citation',
                  url_citation: {
                    url: e.citation.url,
                    title: e.citation.title ?? '',
                    start_index: e.citation.start ?? 0,
                    end_index: e.citation.end ?? 0,
                  },
                },
              ],
            })
          : [];
      case 'hosted-call':
      case 'hosted-result':
        return [];
      // Part boundaries have no frame of their own in this format; reasoning is not part of
      // the Chat Completions format and must not leak into the answer text.
      case 'text-start':
      case 'text-end':
      case 'tool-input-end':
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-signature':
      case 'reasoning-end':
      case 'usage':
        return [];
      default:
        return assertNever(e, 'stream event');
    }
  }

  /**
   * Remembers the id. The role announcement waits for the first content, because OpenAI shapes
   * it by what comes first: `content: ""` before text, `content: null` together with the first
   * tool call (so SDKs rebuild `content: null` for a tool-call-only answer).
   */
  onStart(id: string): SseFrame[] {
    if (id !== '') this.#id = chatCompletionId(id);
    return [];
  }

  onDelta(delta: Delta): SseFrame[] {
    if (this.#started) return [this.#frame(delta, null)];
    return [...this.#announce(), this.#frame(delta, null)];
  }

  /** A tool call's first chunk carries index, id, type and name, with empty arguments. */
  onToolStart(part: number, id: string, name: string): SseFrame[] {
    const index = this.#toolIndex.size;
    this.#toolIndex.set(part, index);
    const call = { tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] };
    if (this.#started) return [this.#frame(call, null)];
    this.#started = true;
    return [this.#frame({ role: 'assistant', content: null, ...call, refusal: null }, null)];
  }

  /** Later chunks carry argument fragments exactly as they came. */
  onToolDelta(part: number, json: string): SseFrame[] {
    const index = this.#toolIndex.get(part) ?? this.#toolIndex.size;
    return this.onDelta({ tool_calls: [{ index, function: { arguments: json } }] });
  }

  onFinish(reason: ChatFinishReason, usage: Usage): SseFrame[] {
    this.#over = true;
    const frames = [...this.#announce(), this.#frame({}, reason)];
    if (this.#includeUsage)
      frames.push({ data: JSON.stringify({ ...this.#envelope(), choices: [], usage: encodeChatUsage(usage) }) });
    frames.push({ data: '[DONE]' });
    return frames;
  }

  /** OpenAI reports a mid-stream failure as a data frame holding an error object; the SDK throws it as APIError. */
  onError(error: GatewayError): SseFrame[] {
    this.#over = true;
    return [{ data: JSON.stringify(chatErrorBody(error)) }];
  }

  /** The role chunk before text, a refusal or an empty answer. */
  #announce(): SseFrame[] {
    if (this.#started) return [];
    this.#started = true;
    return [this.#frame({ role: 'assistant', content: '', refusal: null }, null)];
  }

  #envelope(): { id: string; object: 'chat.completion.chunk'; created: number; model: string } {
    return { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model };
  }

  #frame(delta: Delta, finishReason: ChatFinishReason | null): SseFrame {
    const choices = [{ index: 0, delta, logprobs: null, finish_reason: finishReason }];
    const chunk = this.#includeUsage
      ? {
          id: this.#id,
          object: 'chat.completion.chunk',
          created: this.#created,
          model: this.#model,
          choices,
          usage: null,
        }
      : { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices };
    return { data: JSON.stringify(chunk) };
  }

  /**
   * A text chunk, the frame of nearly every upstream chunk, built as text around the JSON string
   * of its content: the bytes `#frame({ content }, null)` makes, without the chunk's objects
   * (issue #28). The text before the content is made once per id.
   */
  #contentFrame(text: string): SseFrame {
    if (this.#head === undefined || this.#headId !== this.#id) {
      this.#headId = this.#id;
      this.#head = [
        '{"id":',
        JSON.stringify(this.#id),
        ',"object":"chat.completion.chunk","created":',
        this.#created,
        ',"model":',
        JSON.stringify(this.#model),
        ',"choices":[{"index":0,"delta":{"content":',
      ].join('');
    }
    return { data: `${this.#head}${JSON.stringify(text)}${this.#includeUsage ? tailWithUsage : tail}` };
  }
}
