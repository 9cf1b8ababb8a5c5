// IR stream → `streamGenerateContent?alt=sse` frames for Gemini clients. Each frame is `data:` +
// one whole GenerateContentResponse holding only the new parts; the last one carries
// finishReason and usageMetadata (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent).
// Gemini never streams partial function arguments, so a tool call is sent whole when its input ends.
import type { ChatRequest, Part, ReasoningPart } from '../../src/ir/chat-request.ts';
import type { ReasoningOrigin } from '../../src/ir/wire-format.ts';
import type { ChatFinish, SafetyRating, Usage } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';
import type { ClientStreamEncoder, SseFrame } from '../shared/chat-adapter.ts';
import { parseJsonObject, type Json } from '../shared/narrow.ts';
import { functionCallOf, isEnumOutput, safetyRatings, unquoteEnum } from './encode-gemini-result.ts';
import { encodeGeminiError } from './gemini-error.ts';
import { geminiBlockReason, geminiFinishMessage, geminiFinishReason } from './gemini-finish-reason.ts';
import { groundingMetadataOf } from './grounding-metadata.ts';
import { geminiUsageMetadata } from './gemini-usage.ts';
import { signatureOfReasoning } from './thought-signature.ts';

type Thinking = { text: string; signature?: string; redacted?: string; encrypted?: string; origin: ReasoningOrigin };
type ToolInput = { id: string; name: string; json: string };

export class GeminiStreamEncoder implements ClientStreamEncoder {
  /** polygate's web searches (docs/hosted-tools.md), for the last chunk's groundingMetadata. */
  readonly #hosted: Part[] = [];
  readonly #model: string;
  readonly #includeThoughts: boolean;
  readonly #enumOutput: boolean;
  #id = '';
  #usage: Partial<Usage> = {};
  #thinking = new Map<number, Thinking>();
  #tools = new Map<number, ToolInput>();
  /** Text of `text/x.enum` answers, held until the part ends so the JSON quotes can come off. */
  #enumText = new Map<number, string>();
  /** A thoughtSignature waiting for the next part, where Gemini itself would put it. */
  #pendingSignature: string | undefined;
  #over = false;

  constructor(request: ChatRequest) {
    this.#model = request.model;
    this.#includeThoughts = request.reasoning?.includeThoughts === true;
    this.#enumOutput = isEnumOutput(request);
  }

  push(e: StreamEvent): SseFrame[] {
    if (this.#over) return [];
    switch (e.type) {
      case 'start':
        this.#id = e.id;
        if (e.usage) this.#usage = { ...this.#usage, ...e.usage };
        return [];
      case 'text-start':
        if (this.#enumOutput) this.#enumText.set(e.index, '');
        return [];
      case 'text-delta':
        if (this.#enumOutput) {
          this.#enumText.set(e.index, (this.#enumText.get(e.index) ?? '') + e.text);
          return [];
        }
        return e.text === '' ? [] : this.#chunk([{ text: e.text }]);
      case 'text-end': {
        const held = this.#enumText.get(e.index);
        this.#enumText.delete(e.index);
        return held === undefined || held === '' ? [] : this.#chunk([{ text: unquoteEnum(held) }]);
      }
      case 'refusal-delta':
        return e.text === '' ? [] : this.#chunk([{ text: e.text }]);
      case 'reasoning-start': {
        // The origin decides whether a signature goes out as Gemini's own or in an envelope.
        const t: Thinking = { text: '', origin: e.origin };
        if (e.redacted !== undefined) t.redacted = e.redacted;
        this.#thinking.set(e.index, t);
        return [];
      }
      case 'reasoning-delta':
        return this.onReasoningDelta(e.index, e.text);
      case 'reasoning-signature': {
        const t = this.#thinking.get(e.index);
        if (t) t.signature = e.signature;
        return [];
      }
      case 'reasoning-end':
        return this.onReasoningEnd(e.index, e.encrypted);
      case 'tool-input-start':
        this.#tools.set(e.index, { id: e.id, name: e.name, json: '' });
        return [];
      case 'tool-input-delta': {
        const t = this.#tools.get(e.index);
        if (t) t.json += e.json;
        return [];
      }
      case 'tool-input-end':
        return this.onToolInputEnd(e.index);
      case 'usage':
        this.#usage = { ...this.#usage, ...e.usage };
        return [];
      case 'finish':
        return this.onFinish(e.finish, e.usage, e.safety, e.promptBlocked);
      case 'error':
        return this.#fail(e.error);
      // Searches show in the last chunk's groundingMetadata, as Gemini reports them.
      case 'hosted-call':
      case 'hosted-result':
        this.#hosted.push(e.part);
        return [];
      case 'text-citation':
        return [];
      default:
        return assertNever(e, 'stream event');
    }
  }

  onReasoningDelta(index: number, text: string): SseFrame[] {
    const t = this.#thinking.get(index);
    if (t) t.text += text;
    return this.#includeThoughts && text !== '' ? this.#chunk([{ text, thought: true }]) : [];
  }

  /** The signature arrives last: with thoughts shown it closes them, otherwise it waits for the next part. */
  onReasoningEnd(index: number, encrypted: string | undefined): SseFrame[] {
    const t = this.#thinking.get(index);
    this.#thinking.delete(index);
    if (!t) return [];
    const part: ReasoningPart = { type: 'reasoning', text: t.text, origin: t.origin };
    if (t.signature !== undefined) part.signature = t.signature;
    if (t.redacted !== undefined) part.redacted = t.redacted;
    if (encrypted !== undefined) part.encrypted = encrypted;
    const shown = this.#includeThoughts && t.text !== '';
    const sig = signatureOfReasoning(part, !shown);
    if (sig === undefined) return [];
    if (shown) return this.#chunk([{ text: '', thought: true, thoughtSignature: sig }]);
    const frames = this.#pendingSignature !== undefined ? this.#chunk([{ text: '' }]) : [];
    this.#pendingSignature = sig;
    return frames;
  }

  onToolInputEnd(index: number): SseFrame[] {
    const t = this.#tools.get(index);
    this.#tools.delete(index);
    if (!t) return [];
    let args: Json;
    try {
      args = parseJsonObject(t.json, `arguments of tool call '${t.name}'`);
    } catch (e) {
      return this.#fail(e instanceof GatewayError ? e : new GatewayError('upstream', String(e)));
    }
    return this.#chunk([{ functionCall: functionCallOf(t.id, t.name, args) }]);
  }

  /**
   * The last chunk: finishReason, safety ratings and usage. A blocked prompt has no candidate at
   * all, only promptFeedback, as Gemini itself answers it.
   */
  onFinish(
    finish: ChatFinish,
    usage: Usage,
    safety: SafetyRating[] | undefined,
    blocked: { reason: string } | undefined,
  ): SseFrame[] {
    this.#over = true;
    if (blocked) {
      const feedback: Json = { blockReason: geminiBlockReason(blocked.reason) };
      if (safety?.length) feedback.safetyRatings = safetyRatings(safety);
      return [this.#frame({ promptFeedback: feedback, usageMetadata: geminiUsageMetadata(usage) })];
    }
    const candidate: Json = {};
    if (this.#pendingSignature !== undefined)
      candidate.content = { parts: [this.#signed({ text: '' })], role: 'model' };
    candidate.finishReason = geminiFinishReason(finish);
    const message = geminiFinishMessage(finish);
    if (message !== undefined) candidate.finishMessage = message;
    candidate.index = 0;
    if (safety?.length) candidate.safetyRatings = safetyRatings(safety);
    const grounding = groundingMetadataOf(this.#hosted);
    if (grounding) candidate.groundingMetadata = grounding;
    return [this.#frame({ candidates: [candidate], usageMetadata: geminiUsageMetadata(usage) })];
  }

  #signed(part: Json): Json {
    if (this.#pendingSignature === undefined) return part;
    const signed = { ...part, thoughtSignature: this.#pendingSignature };
    this.#pendingSignature = undefined;
    return signed;
  }

  /** The object `#frame` would serialize, built whole: no copy of the body per chunk (issue #28). */
  #chunk(parts: Json[]): SseFrame[] {
    const signed = parts.length === 1 ? [this.#signed(parts[0])] : [this.#signed(parts[0]), ...parts.slice(1)];
    const candidates = [{ content: { parts: signed, role: 'model' }, index: 0 }];
    const modelVersion = this.#model;
    const responseId = this.#id;
    const inputs = this.#usage.inputTokens;
    // Like the real API, every chunk carries the usage known so far (the prompt count).
    const body =
      inputs === undefined
        ? { candidates, modelVersion, responseId }
        : {
            candidates,
            usageMetadata: { promptTokenCount: inputs, totalTokenCount: inputs },
            modelVersion,
            responseId,
          };
    return [{ data: JSON.stringify(body) }];
  }

  #frame(body: Json): SseFrame {
    return { data: JSON.stringify({ ...body, modelVersion: this.#model, responseId: this.#id }) };
  }

  #fail(error: GatewayError): SseFrame[] {
    this.#over = true;
    return [{ data: JSON.stringify(encodeGeminiError(error).body) }];
  }
}
