import type { ChatRequest, Message } from '../../ir/chat-request.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { estimateRequest, estimateTokens } from '../tokens/estimate-tokens.ts';

/**
 * Applies `truncation` against the model's context window: `disabled` answers 400 on overflow;
 * `auto` drops whole messages from the middle (the first one and the newest are kept) until the
 * estimate fits, then removes tool calls and results left without their other half, which every
 * upstream would reject.
 */
export function applyTruncation(
  request: ChatRequest,
  contextWindow: number | undefined,
  mode: 'auto' | 'disabled',
): void {
  if (contextWindow === undefined) return;
  // The answer needs room too: reserve what the request caps it at, if it says.
  const budget = contextWindow - (request.maxTokens ?? 0);
  // One bounded estimate (src/services/tokens/estimate-tokens.ts), per message, so dropping one costs nothing.
  const estimate = estimateRequest(request);
  let total = estimate.total;
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
    total -= estimate.messages[1];
    msgs.splice(1, 1);
    estimate.messages.splice(1, 1);
  }
  dropOrphanToolParts(msgs);
  if (estimateTokens(request) > budget) {
    throw new GatewayError(
      'invalid-request',
      `The newest input alone exceeds the context window of this model (${contextWindow} tokens), even with truncation 'auto'.`,
      { param: 'input' },
    );
  }
}

function dropOrphanToolParts(msgs: Message[]): void {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of msgs)
    for (const p of m.parts)
      if (p.type === 'tool-call') calls.add(p.id);
      else if (p.type === 'tool-result') results.add(p.callId);
  for (const m of msgs)
    m.parts = m.parts.filter((p) =>
      p.type === 'tool-result'
        ? calls.has(p.callId)
        : p.type === 'tool-call'
          ? results.has(p.id) || m === msgs[msgs.length - 1]
          : true,
    );
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].parts.length === 0) msgs.splice(i, 1);
}
