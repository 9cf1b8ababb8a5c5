// `streamGenerateContent?alt=sse` from a Gemini upstream → IR stream events
// (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent).
//
// A small state machine. Every `data:` frame is a whole GenerateContentResponse with the next
// parts; one method per kind of part. Consecutive text parts continue one IR text part, thought
// parts one reasoning part; a functionCall arrives whole (Gemini never streams partial
// arguments) and becomes start + one delta + end. usageMetadata is a running total, so the last
// one wins. `finish` is emitted when the stream ends after a chunk carried a finishReason.
import type { ChatFinish, SafetyRating, Usage } from '../../src/ir/chat-result.ts';
import { emptyUsage } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { assertNever, type StreamEvent } from '../../src/ir/stream-event.ts';
import type { ReasoningOrigin } from '../../src/ir/wire-format.ts';
import type { UpstreamStreamDecoder } from '../shared/chat-adapter.ts';
import { firstAtIndexZero, isObject, type Json } from '../shared/narrow.ts';
import { syntheticCallId } from './call-ids.ts';
import { safetyOf } from './decode-gemini-upstream-result.ts';
import { decodeGeminiStreamError } from './gemini-error.ts';
import { finishOfGemini } from './gemini-finish-reason.ts';
import { usageOfGemini } from './gemini-usage.ts';
import { reasoningOfSignature } from './thought-signature.ts';
import { DecodedEvents } from '../shared/decoded-events.ts';
import { frameObject } from '../shared/frame-json.ts';

type OpenPart = { kind: 'text'; index: number } | { kind: 'reasoning'; index: number; signed: boolean };

const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export class GeminiStreamDecoder implements UpstreamStreamDecoder {
  readonly #out = new DecodedEvents();
  #started = false;
  #nextIndex = 0;
  #open: OpenPart | undefined;
  #toolCalls = 0;
  #rawFinish: string | undefined;
  #usage: Usage | undefined;
  /** The finish word came from promptFeedback.blockReason: the prompt itself was refused. */
  #promptBlocked = false;
  /** The latest safety ratings (of the candidate, or of the prompt when it was blocked). */
  #safety: SafetyRating[] | undefined;

  push(frame: { event?: string; data: string }): StreamEvent[] {
    if (this.#out.over) return [];
    const data = frame.data.trim();
    if (data !== '') this.onChunk(data);
    return this.#out.take();
  }

  end(): StreamEvent[] {
    if (this.#out.over) return [];
    if (this.#rawFinish === undefined) {
      this.#out.fail(
        new GatewayError('upstream', 'gemini upstream stream ended early (no chunk carried a finishReason)'),
      );
      return this.#out.take();
    }
    this.#closeOpen();
    this.#out.over = true;
    const finish: ChatFinish = this.#finish(this.#rawFinish);
    this.#out.push({
      type: 'finish',
      finish,
      usage: this.#usage ?? emptyUsage(),
      ...(this.#safety ? { safety: this.#safety } : {}),
      ...(this.#promptBlocked ? { promptBlocked: { reason: this.#rawFinish } } : {}),
    });
    return this.#out.take();
  }

  onChunk(data: string): void {
    const chunk = frameObject(data, 'gemini upstream sent a stream chunk');
    if (chunk instanceof GatewayError) return this.#out.fail(chunk);
    if (chunk.error !== undefined && chunk.error !== null) return this.#out.fail(decodeGeminiStreamError(chunk));
    this.onStart(chunk);
    if (chunk.usageMetadata !== undefined) this.#usage = usageOfGemini(chunk.usageMetadata);
    const candidate = firstAtIndexZero(chunk.candidates);
    if (candidate !== undefined) {
      const content = isObject(candidate.content) ? candidate.content : {};
      for (const part of Array.isArray(content.parts) ? content.parts : []) if (isObject(part)) this.onPart(part);
      this.#safety = safetyOf(candidate.safetyRatings) ?? this.#safety;
      const reason = s(candidate.finishReason);
      if (reason !== undefined) this.onFinishReason(reason);
    } else if (isObject(chunk.promptFeedback) && typeof chunk.promptFeedback.blockReason === 'string') {
      this.#safety = safetyOf(chunk.promptFeedback.safetyRatings) ?? this.#safety;
      this.onFinishReason(chunk.promptFeedback.blockReason, true);
    }
  }

  onStart(chunk: Json): void {
    if (this.#started) return;
    this.#started = true;
    const usage = isObject(chunk.usageMetadata)
      ? { inputTokens: usageOfGemini(chunk.usageMetadata).inputTokens }
      : undefined;
    this.#out.push({
      type: 'start',
      id: s(chunk.responseId) ?? '',
      model: s(chunk.modelVersion) ?? '',
      ...(usage ? { usage } : {}),
    });
  }

  onPart(part: Json): void {
    const text = s(part.text);
    const signature = s(part.thoughtSignature);
    if (text !== undefined && part.thought === true) return this.onThought(text, signature);
    if (signature !== undefined) this.onSignature(signature);
    if (text !== undefined) return this.onText(text);
    if (isObject(part.functionCall)) return this.onFunctionCall(part.functionCall);
    if (isObject(part.executableCode) || isObject(part.codeExecutionResult)) return this.onCode(part);
    if (isObject(part.inlineData) || isObject(part.fileData)) {
      // The IR stream has no media events; failing beats silently losing an image.
      return this.#out.fail(
        new GatewayError(
          'upstream',
          'gemini upstream streamed a media part, which polygate cannot relay in a translated stream; use generateContent',
        ),
      );
    }
  }

  onThought(text: string, signature: string | undefined): void {
    const envelope = signature !== undefined ? reasoningOfSignature(signature, text) : undefined;
    let open = this.#open;
    if (open?.kind !== 'reasoning' || open.signed) open = this.#openReasoning(undefined, envelope?.origin ?? 'gemini');
    const index = open.index;
    const t = envelope?.text ?? text;
    if (t !== '') this.#out.push({ type: 'reasoning-delta', index, text: t });
    if (envelope?.signature !== undefined) {
      this.#out.push({ type: 'reasoning-signature', index, signature: envelope.signature });
      open.signed = true;
    }
  }

  /** A signature on a non-thought part: an empty reasoning part carrying it, before that part. */
  onSignature(signature: string): void {
    const r = reasoningOfSignature(signature, '');
    if (r.origin !== 'gemini' && this.#open?.kind === 'reasoning' && !this.#open.signed && r.signature !== undefined) {
      this.#out.push({ type: 'reasoning-signature', index: this.#open.index, signature: r.signature });
      this.#open.signed = true;
      this.#closeOpen();
      return;
    }
    const open = this.#openReasoning(r.redacted, r.origin);
    if (r.text !== '') this.#out.push({ type: 'reasoning-delta', index: open.index, text: r.text });
    if (r.signature !== undefined)
      this.#out.push({ type: 'reasoning-signature', index: open.index, signature: r.signature });
    this.#closeOpen(r.encrypted);
  }

  onText(text: string): void {
    if (text === '') return;
    let open = this.#open;
    if (open?.kind !== 'text') {
      this.#closeOpen();
      open = { kind: 'text', index: this.#nextIndex++ };
      this.#open = open;
      this.#out.push({ type: 'text-start', index: open.index });
    }
    this.#out.push({ type: 'text-delta', index: open.index, text });
  }

  onFunctionCall(fc: Json): void {
    this.#closeOpen();
    const name = s(fc.name) ?? '';
    const index = this.#nextIndex++;
    const id = s(fc.id) ?? syntheticCallId(name, this.#toolCalls);
    this.#toolCalls++;
    this.#out.push({ type: 'tool-input-start', index, id, name });
    this.#out.push({ type: 'tool-input-delta', index, json: JSON.stringify(isObject(fc.args) ? fc.args : {}) });
    this.#out.push({ type: 'tool-input-end', index });
  }

  /**
   * Code execution parts have no IR stream event; they are shown as text (a fenced code block,
   * then its output) rather than dropped.
   */
  onCode(part: Json): void {
    if (isObject(part.executableCode)) {
      const lang = s(part.executableCode.language) === 'PYTHON' ? 'python' : '';
      this.onText(`\n\`\`\`${lang}\n${s(part.executableCode.code) ?? ''}\n\`\`\`\n`);
    } else if (isObject(part.codeExecutionResult)) {
      this.onText(`\n\`\`\`\n${s(part.codeExecutionResult.output) ?? ''}\n\`\`\`\n`);
    }
  }

  onFinishReason(raw: string, promptBlocked = false): void {
    this.#closeOpen();
    this.#rawFinish = raw;
    if (promptBlocked) this.#promptBlocked = true;
  }

  #finish(raw: string): ChatFinish {
    if (this.#promptBlocked) return { reason: 'content-filter', raw };
    return finishOfGemini(raw, this.#toolCalls > 0);
  }

  /** `origin` names whose signature the part carries: Gemini's own, or another provider's from an envelope. */
  #openReasoning(
    redacted: string | undefined,
    origin: ReasoningOrigin,
  ): { kind: 'reasoning'; index: number; signed: boolean } {
    this.#closeOpen();
    const open = { kind: 'reasoning' as const, index: this.#nextIndex++, signed: false };
    this.#open = open;
    this.#out.push(
      redacted === undefined
        ? { type: 'reasoning-start', index: open.index, origin }
        : { type: 'reasoning-start', index: open.index, redacted, origin },
    );
    return open;
  }

  #closeOpen(encrypted?: string): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    switch (open.kind) {
      case 'text':
        this.#out.push({ type: 'text-end', index: open.index });
        break;
      case 'reasoning':
        this.#out.push(
          encrypted === undefined
            ? { type: 'reasoning-end', index: open.index }
            : { type: 'reasoning-end', index: open.index, encrypted },
        );
        break;
      default:
        assertNever(open, 'open part');
    }
  }
}
