import { countTokens } from 'gpt-tokenizer';
import type { ChatRequest, Message, Part } from '../ir/chat-request.ts';
import { assertNever } from '../ir/stream-event.ts';
import { GatewayError } from '../ir/gateway-error.ts';

/**
 * Token estimate of one part with OpenAI's o200k tokenizer: exact for text, a flat cost for media
 * (OpenAI bills a low-detail image at 85 tokens), which is what an estimate before sending can do.
 */
function partTokens(p: Part): number {
  switch (p.type) {
    case 'text':
    case 'reasoning':
    case 'refusal':
      return countTokens(p.text);
    case 'tool-call':
      return countTokens(p.name) + countTokens(p.args);
    case 'tool-result':
      return p.content.reduce((n, c) => n + partTokens(c), 0);
    case 'code':
      return countTokens(p.code);
    case 'code-result':
      return countTokens(p.output);
    case 'image':
      return 85;
    case 'file':
      return p.source.kind === 'text' ? countTokens(p.source.text) : 85;
    default:
      return assertNever(p, 'part');
  }
}

/** Per-message overhead of chat formatting (role and separators), as OpenAI's cookbook counts it. */
const messageTokens = (m: Message): number => 4 + m.parts.reduce((n, p) => n + partTokens(p), 0);

export function estimateTokens(request: ChatRequest): number {
  return request.system.reduce((n, p) => n + countTokens(p.text), 0) + request.messages.reduce((n, m) => n + messageTokens(m), 0);
}

/**
 * Applies `truncation` against the model's context window: `disabled` answers 400 on overflow;
 * `auto` drops whole messages from the middle (the first one and the newest are kept) until the
 * estimate fits, then removes tool calls and results left without their other half, which every
 * upstream would reject.
 */
export function applyTruncation(request: ChatRequest, contextWindow: number | undefined, mode: 'auto' | 'disabled'): void {
  if (contextWindow === undefined) return;
  // The answer needs room too: reserve what the request caps it at, if it says.
  const budget = contextWindow - (request.maxTokens ?? 0);
  let total = estimateTokens(request);
  if (total <= budget) return;
  if (mode === 'disabled') {
    throw new GatewayError(
      'invalid-request',
      `Your input exceeds the context window of this model (about ${total} tokens, window ${contextWindow}${request.maxTokens ? ` less max_output_tokens ${request.maxTokens}` : ''}). Shorten the input or set truncation to 'auto'.`,
      { param: 'input' },
    );
  }
  const msgs = request.messages;
  while (total > budget && msgs.length > 2) {
    total -= messageTokens(msgs[1]);
    msgs.splice(1, 1);
  }
  dropOrphanToolParts(msgs);
  if (estimateTokens(request) > budget) {
    throw new GatewayError('invalid-request', `The newest input alone exceeds the context window of this model (${contextWindow} tokens), even with truncation 'auto'.`, { param: 'input' });
  }
}

function dropOrphanToolParts(msgs: Message[]): void {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of msgs) for (const p of m.parts) if (p.type === 'tool-call') calls.add(p.id); else if (p.type === 'tool-result') results.add(p.callId);
  for (const m of msgs) m.parts = m.parts.filter((p) => (p.type === 'tool-result' ? calls.has(p.callId) : p.type === 'tool-call' ? results.has(p.id) || m === msgs[msgs.length - 1] : true));
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].parts.length === 0) msgs.splice(i, 1);
}
