// Extensions one format carries that change what the model answers or what it may use, so that
// leaving them out would silently answer a different request. An upstream of another format that
// cannot carry one rejects the request with a 400 naming the field and the provider (docs/open-world.md:
// nothing is silently dropped; only pure tuning knobs may be dropped with a warning).
import { invalid, type GatewayError } from '../../src/ir/gateway-error.ts';

/** Why each key cannot be dropped, by wire name. */
const reasons: Record<string, string> = {
  // Gemini: the prompt content cached at Google is part of the request.
  cachedContent: 'the cached prompt content lives at Google',
  // Gemini: spoken output.
  speechConfig: 'speech output is not available',
  // Responses: a stored prompt template supplies instructions and input.
  prompt: 'the stored prompt template lives at OpenAI',
  // Responses: a background response is answered later, by polling; a conversation object is OpenAI's state.
  background: 'background responses are not supported through polygate',
  conversation: 'polygate keeps conversation state itself; use previous_response_id',
  // Messages: MCP servers give the model tools.
  mcp_servers: 'MCP servers give the model tools it cannot reach here',
  // Chat Completions: web search is a tool of OpenAI's search models.
  web_search_options: 'web search is not available',
};

/** A 400 for an extension the upstream cannot carry and must not drop; undefined when dropping it is honest. */
export function outputChangingExtension(key: string, value: unknown, provider: string): GatewayError | undefined {
  // Gemini tools without an IR kind (urlContext, googleMaps…) are offered, not forced: like every
  // hosted tool an upstream lacks, they are dropped with a warning (docs/open-world.md).
  // Only non-text modalities change the answer; ['TEXT'] is what every upstream returns.
  if (key === 'responseModalities') {
    const other = Array.isArray(value) ? value.filter((m) => m !== 'TEXT') : [];
    return other.length === 0
      ? undefined
      : invalid(key, `${key}: ${other.join(', ')} output is not supported by provider format '${provider}'`);
  }
  // Own keys only: a client field named `constructor` or `toString` is unknown, not Object.prototype's.
  const why = Object.hasOwn(reasons, key) ? reasons[key] : undefined;
  return why === undefined
    ? undefined
    : invalid(key, `${key}: not supported by provider format '${provider}' (${why})`);
}
