// The `field` label of polygate_translation_warnings_total. Warnings name request fields, and a
// client may send any field name it likes (an unknown field is dropped with a warning), so the
// label takes only the top-level name and only from a fixed list per inbound format: the request
// fields of that format's API (its SDK's request type) and the IR words the upstream encoders use
// for settings several formats share. Anything else counts as `other`; the header and the log
// still name it.

const shared = ['cache', 'cache_control', 'detail', 'reasoning', 'parallelToolCalls', 'strict', 'user', 'metadata', 'tools', 'messages', 'top_k', 'seed', 'presence_penalty', 'frequency_penalty', 'logprobs'];

const byFormat: Record<string, readonly string[]> = {
  'openai-chat': [
    'model', 'messages', 'audio', 'frequency_penalty', 'function_call', 'functions', 'logit_bias', 'logprobs', 'max_completion_tokens', 'max_tokens', 'metadata',
    'modalities', 'n', 'parallel_tool_calls', 'prediction', 'presence_penalty', 'prompt_cache_key', 'prompt_cache_retention', 'reasoning_effort', 'response_format',
    'safety_identifier', 'seed', 'service_tier', 'stop', 'store', 'stream', 'stream_options', 'temperature', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user',
    'verbosity', 'web_search_options',
  ],
  'openai-responses': [
    'model', 'input', 'background', 'conversation', 'include', 'instructions', 'max_output_tokens', 'max_tool_calls', 'metadata', 'parallel_tool_calls',
    'previous_response_id', 'prompt', 'prompt_cache_key', 'prompt_cache_retention', 'reasoning', 'safety_identifier', 'service_tier', 'store', 'stream',
    'stream_options', 'temperature', 'text', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user', 'context_management',
  ],
  'anthropic-messages': [
    'model', 'messages', 'max_tokens', 'container', 'context_management', 'mcp_servers', 'metadata', 'service_tier', 'stop_sequences', 'stream', 'system',
    'temperature', 'thinking', 'tool_choice', 'tools', 'top_k', 'top_p', 'output_config', 'output_format', 'inference_geo', 'speed', 'diagnostics', 'user_profile_id',
  ],
  gemini: ['contents', 'tools', 'toolConfig', 'systemInstruction', 'generationConfig', 'safetySettings', 'cachedContent', 'labels', 'serviceTier', 'store', 'model'],
  'openai-audio': ['model', 'input', 'voice', 'response_format', 'speed', 'instructions', 'stream_format', 'language', 'prompt', 'temperature', 'stream', 'timestamp_granularities', 'include', 'chunking_strategy'],
};

const known = new Map<string, ReadonlySet<string>>(Object.entries(byFormat).map(([format, fields]) => [format, new Set([...fields, ...shared])]));

/** The label value for a warning about `field` on a request in `inboundFormat`. */
export function warningFieldLabel(inboundFormat: string, field: string): string {
  const top = /^[^.[]*/.exec(field)?.[0] ?? '';
  return known.get(inboundFormat)?.has(top) ? top : 'other';
}

/** Header values are bounded too: a request with thousands of unknown fields gets a short summary. */
const maxHeaderChars = 2048;

/** The `x-polygate-warnings` value: one line of visible ASCII (no CR/LF from client text), bounded. */
export function warningsHeader(warnings: readonly string[]): string | undefined {
  if (warnings.length === 0) return undefined;
  let out = '';
  let shown = 0;
  for (const w of warnings) {
    const next = (out ? '; ' : '') + w.replace(/[^\x20-\x7e]/g, '?');
    if (out.length + next.length > maxHeaderChars) break;
    out += next;
    shown++;
  }
  return shown < warnings.length ? `${out}${out ? '; ' : ''}(${warnings.length - shown} more)` : out;
}
