// The hosted-tool loop (docs/hosted-tools.md): a chat provider that stands in front of the routed
// one. When the model calls polygate's web_search / web_fetch function tools
// (src/families/chat/hosted-tool-offer.ts), the loop runs them (src/services/hosted-tools/), shows
// the call and its result to the client as hosted-tool parts, feeds the result back as a tool
// result and calls the upstream again, until the model answers, within `max_rounds` and
// `max_total_ms` (the last round offers no hosted tools, so the model must answer).
// A stream stays a stream: the call shows when the model made it, the result when it came.
import type {
  ChatRequest,
  Citation,
  HostedResultPart,
  HostedToolName,
  Message,
  Part,
  ToolCallPart,
  WebSource,
} from '../../ir/chat-request.ts';
import type { ChatResult, Usage } from '../../ir/chat-result.ts';
import { toGatewayError } from '../../infra/errors/to-gateway-error.ts';
import type { StreamEvent } from '../../ir/stream-event.ts';
import { hostedToolRounds } from '../../infra/metrics/registry.ts';
import type { CallOptions, ChatProvider } from '../../services/providers/chat-provider.ts';
import { HostedToolRunner } from '../../services/hosted-tools/hosted-tool-runner.ts';
import { hostedPartText } from '../../../adapters/shared/hosted-part-text.ts';
import type { HostedOffer } from './hosted-tool-offer.ts';

const addUsage = (a: Usage, b: Usage): Usage => {
  const out: Usage = {
    ...a,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  for (const k of ['reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const)
    if (a[k] !== undefined || b[k] !== undefined) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
};

/** Citations for the sources a text names by URL, as the model was asked to. */
function citationsFor(text: string, sources: WebSource[]): Citation[] {
  const out: Citation[] = [];
  for (const s of sources) {
    const start = text.indexOf(s.url);
    if (start < 0 || out.some((c) => c.kind === 'url' && c.url === s.url)) continue;
    out.push({
      kind: 'url',
      url: s.url,
      ...(s.title ? { title: s.title } : {}),
      citedText: (s.snippet ?? s.title ?? '').slice(0, 150),
      start,
      end: start + s.url.length,
    });
  }
  return out;
}

/** The tool results the upstream reads on the next round. */
const toolResultOf = (r: HostedResultPart): Part => ({
  type: 'tool-result',
  callId: r.callId,
  name: r.tool,
  content: [{ type: 'text', text: hostedPartText(r) }],
  isError: r.error !== undefined,
});

export class HostedToolLoop implements ChatProvider {
  readonly name: string;
  readonly type: string;
  readonly wireFormat: ChatProvider['wireFormat'];
  readonly #inner: ChatProvider;
  readonly #offer: HostedOffer;
  readonly #runner: HostedToolRunner;
  readonly #startedAt = performance.now();
  readonly #sources: WebSource[] = [];

  constructor(inner: ChatProvider, offer: HostedOffer) {
    this.#inner = inner;
    this.#offer = offer;
    this.#runner = new HostedToolRunner(offer.setup);
    this.name = inner.name;
    this.type = inner.type;
    this.wireFormat = inner.wireFormat;
  }

  #hosted(name: string): HostedToolName | undefined {
    return this.#offer.names.has(name) ? (name as HostedToolName) : undefined;
  }

  /** The request of round `round` (from 1): the last one offers none of polygate's tools. */
  #requestFor(base: ChatRequest, messages: Message[], round: number): ChatRequest {
    const { config } = this.#offer.setup;
    const last = round >= config.max_rounds || performance.now() - this.#startedAt > config.max_total_ms;
    if (!last && round === 1) return base;
    const tools = last ? base.tools.filter((t) => t.type !== 'function' || !this.#hosted(t.name)) : base.tools;
    // A forced tool was forced once; later rounds let the model answer.
    const forced = base.toolChoice?.type === 'tool' || base.toolChoice?.type === 'required';
    const { toolChoice, ...rest } = base;
    return {
      ...rest,
      messages,
      tools,
      ...(toolChoice && !forced && tools.length > 0 ? { toolChoice } : {}),
    };
  }

  #usage(u: Usage): Usage {
    const r = this.#runner;
    return {
      ...u,
      ...(r.searches ? { webSearchRequests: r.searches } : {}),
      ...(r.fetches ? { webFetchRequests: r.fetches } : {}),
    };
  }

  async #runAll(calls: ToolCallPart[], signal: AbortSignal): Promise<HostedResultPart[]> {
    const results: HostedResultPart[] = [];
    // One at a time: max_uses counts in the order the model asked.
    for (const c of calls) {
      const tool = this.#hosted(c.name);
      if (!tool) continue;
      const r = await this.#runner.run(this.#runner.callOf({ id: c.id, tool, args: c.args }), signal);
      this.#sources.push(...r.sources);
      results.push(r);
    }
    return results;
  }

  async complete(request: ChatRequest, model: string, opts: CallOptions): Promise<ChatResult> {
    let messages = request.messages;
    const shown: Part[] = [];
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    for (let round = 1; ; round++) {
      if (round > 1) hostedToolRounds.inc();
      const result = await this.#inner.complete(this.#requestFor(request, messages, round), model, opts);
      usage = addUsage(usage, result.usage);
      const calls = result.parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && !!this.#hosted(p.name));
      const texts = result.parts.map((p): Part => {
        if (p.type !== 'text') return p;
        const citations = citationsFor(p.text, this.#sources);
        return citations.length > 0 ? { ...p, citations: [...(p.citations ?? []), ...citations] } : p;
      });
      if (calls.length === 0) return { ...result, parts: [...shown, ...texts], usage: this.#usage(usage) };
      const results = await this.#runAll(calls, opts.signal);
      for (const p of texts) {
        if (p.type === 'tool-call' && this.#hosted(p.name)) {
          shown.push(this.#runner.callOf({ id: p.id, tool: this.#hosted(p.name)!, args: p.args }));
          const r = results.find((x) => x.callId === p.id);
          if (r) shown.push(r);
        } else shown.push(p);
      }
      // The client's own tool calls end the answer: the client runs them, and its next turn
      // carries the hosted blocks back.
      if (calls.length < result.parts.filter((p) => p.type === 'tool-call').length)
        return { ...result, parts: shown, usage: this.#usage(usage) };
      messages = [
        ...messages,
        { role: 'assistant', parts: result.parts },
        { role: 'user', parts: results.map(toolResultOf) },
      ];
    }
  }

  async openStream(request: ChatRequest, model: string, opts: CallOptions): Promise<AsyncIterable<StreamEvent>> {
    const first = await this.#inner.openStream(this.#requestFor(request, request.messages, 1), model, opts);
    return this.#events(first, request, model, opts);
  }

  async *#events(
    first: AsyncIterable<StreamEvent>,
    request: ChatRequest,
    model: string,
    opts: CallOptions,
  ): AsyncGenerator<StreamEvent> {
    let events = first;
    let messages = request.messages;
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let next = 0; // the next free IR index across rounds
    for (let round = 1; ; round++) {
      const offset = next;
      const parts = new Map<number, Part>();
      const texts = new Map<number, string>();
      let finish: Extract<StreamEvent, { type: 'finish' }> | undefined;
      for await (const e of events) {
        if (e.type === 'start') {
          if (round === 1) yield e;
          continue;
        }
        if (e.type === 'usage') continue; // each round's finish carries its whole usage
        if (e.type === 'finish') {
          finish = e;
          break;
        }
        if (e.type === 'error') {
          yield e;
          return;
        }
        const index = e.index + offset;
        next = Math.max(next, index + 1);
        if (e.type === 'tool-input-start') parts.set(e.index, { type: 'tool-call', id: e.id, name: e.name, args: '' });
        if (e.type === 'tool-input-delta') {
          const p = parts.get(e.index);
          if (p?.type === 'tool-call') p.args += e.json;
        }
        const call = parts.get(e.index);
        // polygate's own tool calls are shown once whole, as hosted calls, just before they run.
        if (call?.type === 'tool-call' && this.#hosted(call.name)) continue;
        if (e.type === 'text-delta') texts.set(e.index, (texts.get(e.index) ?? '') + e.text);
        if (e.type === 'text-end') {
          for (const citation of citationsFor(texts.get(e.index) ?? '', this.#sources))
            yield { type: 'text-citation', index, citation };
          parts.set(e.index, { type: 'text', text: texts.get(e.index) ?? '' });
        }
        if (e.type === 'reasoning-start') parts.set(e.index, { type: 'reasoning', text: '', origin: e.origin });
        yield { ...e, index };
      }
      if (!finish) return;
      usage = addUsage(usage, finish.usage);
      const ordered = [...parts.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p);
      const calls = ordered.filter((p): p is ToolCallPart => p.type === 'tool-call' && !!this.#hosted(p.name));
      if (calls.length === 0) {
        yield { ...finish, usage: this.#usage(usage) };
        return;
      }
      const results: HostedResultPart[] = [];
      for (const c of calls) {
        const call = this.#runner.callOf({ id: c.id, tool: this.#hosted(c.name)!, args: c.args });
        yield { type: 'hosted-call', index: next++, part: call };
        const [r] = await this.#runAll([c], opts.signal);
        results.push(r);
        yield { type: 'hosted-result', index: next++, part: r };
      }
      if (calls.length < ordered.filter((p) => p.type === 'tool-call').length) {
        yield { ...finish, usage: this.#usage(usage) };
        return;
      }
      // Reasoning without its signature cannot go back; the text and the calls are what matter.
      const said = ordered.filter((p) => p.type !== 'reasoning');
      messages = [...messages, { role: 'assistant', parts: said }, { role: 'user', parts: results.map(toolResultOf) }];
      hostedToolRounds.inc();
      try {
        events = await this.#inner.openStream(this.#requestFor(request, messages, round + 1), model, opts);
      } catch (e) {
        yield { type: 'error', error: toGatewayError(e) };
        return;
      }
    }
  }
}
