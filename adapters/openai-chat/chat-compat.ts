// OpenAI-compatible servers (vLLM, Ollama, DeepSeek, OpenRouter) speak Chat Completions with
// dialect differences: which output-limit field they take, how reasoning is asked for, where
// reasoning text and cache counts come back, and how a tool call ends. A provider's `compat`
// setting names the dialect (docs/providers.md, "OpenAI-compatible servers"); this module wraps
// the Chat Completions codec with it. Pure: it rewrites encoded bodies and decoded events only.
import type { ReasoningConfig } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import type { ChatUpstreamCodec, UpstreamStreamDecoder, WarningSink } from '../shared/chat-adapter.ts';
import { nearestEffort, effortOfBudget } from '../shared/reasoning-map.ts';

/** The dialects polygate knows; `openai` is OpenAI's own Chat Completions (the codec unchanged). */
export const chatCompats = ['openai', 'vllm', 'ollama', 'deepseek', 'openrouter'] as const;
export type ChatCompat = (typeof chatCompats)[number];

type Body = Record<string, unknown>;

type Dialect = {
  /** The output-limit field the server reads (DeepSeek and Ollama ignore `max_completion_tokens`). */
  readonly limitField: 'max_tokens' | 'max_completion_tokens';
  /** Rewrites the reasoning request: the encoder wrote OpenAI's `reasoning_effort`. */
  reasoning(body: Body, r: ReasoningConfig | undefined): void;
  /** A `stop` finish after tool calls means the model called tools (Ollama's word for it). */
  readonly stopAfterToolsIsToolCalls: boolean;
};

/** The effort the Chat encoder chose, if any (it writes nothing for reasoning left at the default). */
const effortOf = (r: ReasoningConfig | undefined): 'low' | 'medium' | 'high' | undefined => {
  if (!r?.enabled) return undefined;
  if (r.effort) return nearestEffort(r.effort, ['low', 'medium', 'high'] as const);
  if (r.budgetTokens !== undefined) return nearestEffort(effortOfBudget(r.budgetTokens), ['low', 'medium', 'high']);
  return 'medium';
};

const dialects: Record<Exclude<ChatCompat, 'openai'>, Dialect> = {
  // vLLM takes `reasoning_effort` (gpt-oss) and passes `chat_template_kwargs` to the model's chat
  // template, where Qwen3, GLM and Granite read `enable_thinking`; it returns `reasoning_content`
  // (older) or `reasoning` when started with a reasoning parser.
  vllm: {
    limitField: 'max_tokens',
    reasoning(body, r) {
      if (!r) return;
      const kwargs = typeof body.chat_template_kwargs === 'object' ? (body.chat_template_kwargs as Body) : {};
      body.chat_template_kwargs = { ...kwargs, enable_thinking: r.enabled };
      if (!r.enabled) delete body.reasoning_effort;
    },
    stopAfterToolsIsToolCalls: false,
  },
  // Ollama's /v1 takes `reasoning_effort` (none/low/medium/high: its `think` setting) and returns
  // `reasoning`; it sends each tool call whole in one delta and, in older versions, ends a
  // tool-calling answer with `stop`.
  ollama: {
    limitField: 'max_tokens',
    reasoning(body, r) {
      if (!r) return;
      const effort = effortOf(r);
      if (effort) body.reasoning_effort = effort;
      else body.reasoning_effort = 'none';
    },
    stopAfterToolsIsToolCalls: true,
  },
  // DeepSeek switches thinking with `thinking: {type}` (deepseek-reasoner always thinks) and has
  // no effort levels; it returns `reasoning_content` and counts cache hits in
  // `prompt_cache_hit_tokens` (read by chat-usage.ts).
  deepseek: {
    limitField: 'max_tokens',
    reasoning(body, r) {
      delete body.reasoning_effort;
      if (r) body.thinking = { type: r.enabled ? 'enabled' : 'disabled' };
    },
    stopAfterToolsIsToolCalls: false,
  },
  // OpenRouter's unified `reasoning` object (effort or max_tokens; `exclude: false` returns the
  // text), answered in `reasoning` (and `reasoning_details`, which polygate does not replay).
  openrouter: {
    limitField: 'max_tokens',
    reasoning(body, r) {
      delete body.reasoning_effort;
      if (!r) return;
      if (!r.enabled) body.reasoning = { enabled: false };
      else if (r.budgetTokens !== undefined && !r.effort) body.reasoning = { max_tokens: r.budgetTokens };
      else body.reasoning = { effort: effortOf(r), exclude: false };
    },
    stopAfterToolsIsToolCalls: false,
  },
};

/** The Chat Completions codec as a compatible server of this dialect speaks it. */
export function compatChatCodec(base: ChatUpstreamCodec, compat: ChatCompat): ChatUpstreamCodec {
  if (compat === 'openai') return base;
  const d = dialects[compat];
  return {
    ...base,
    encodeRequest(req, model, warn) {
      const enc = base.encodeRequest(req, model, compatWarnings(warn));
      const body = { ...(enc.body as Body) };
      if (d.limitField === 'max_tokens' && body.max_completion_tokens !== undefined) {
        body.max_tokens = body.max_completion_tokens;
        delete body.max_completion_tokens;
      }
      d.reasoning(body, req.reasoning);
      return { ...enc, body };
    },
    decodeResult(body): ChatResult {
      const r = base.decodeResult(body);
      if (d.stopAfterToolsIsToolCalls && r.finish.reason === 'stop' && r.parts.some((p) => p.type === 'tool-call'))
        return { ...r, finish: { reason: 'tool-calls', raw: r.finish.raw } };
      return r;
    },
    createStreamDecoder: () =>
      d.stopAfterToolsIsToolCalls ? new ToolStopDecoder(base.createStreamDecoder()) : base.createStreamDecoder(),
  };
}

/** Compatible servers return reasoning text, so the Chat encoder's "no reasoning text" warning does not apply. */
const compatWarnings =
  (warn: WarningSink): WarningSink =>
  (field, message) => {
    if (field !== 'reasoning.include_thoughts') warn(field, message);
  };

/** Turns a `stop` finish that follows tool calls into a tool-calls finish. */
class ToolStopDecoder implements UpstreamStreamDecoder {
  readonly #inner: UpstreamStreamDecoder;
  #sawTool = false;
  constructor(inner: UpstreamStreamDecoder) {
    this.#inner = inner;
  }
  push(frame: { event?: string; data: string }): StreamEvent[] {
    return this.#fix(this.#inner.push(frame));
  }
  end(): StreamEvent[] {
    return this.#fix(this.#inner.end());
  }
  #fix(events: StreamEvent[]): StreamEvent[] {
    return events.map((e) => {
      if (e.type === 'tool-input-start') this.#sawTool = true;
      if (e.type === 'finish' && this.#sawTool && e.finish.reason === 'stop')
        return { ...e, finish: { reason: 'tool-calls', raw: e.finish.raw } };
      return e;
    });
  }
}
