// Extensions a client decoder records for its own encoder, or that the IR already carries in
// another form. They are never sent upstream as such, and not being sent is not a drop: an
// upstream encoder of another format skips them instead of warning (docs/open-world.md; "nothing is
// silently dropped" is about fields the upstream would have honoured).
export const clientSideExtensions: ReadonlySet<string> = new Set([
  // Responses: `instructions` travels as the system prompt; the key only lets the response echo it.
  'instructions',
  // Responses: `include` asks polygate's answer for extra fields (encrypted reasoning, logprobs
  // are mapped to sampling.logprobs); the client encoder honours it.
  'include',
  // Chat Completions: whether polygate's own stream ends with a usage chunk.
  'stream_options.include_usage',
  'stream_options.include_obfuscation',
  // Responses: `stream_options` (include_obfuscation) shapes polygate's own stream.
  'stream_options',
  // Gemini: `text/x.enum` is carried as a string-enum schema; the client encoder unquotes the value.
  'responseMimeType',
  // Responses: the wire name and namespace of each flattened namespaced tool, for the client
  // encoder to restore (adapters/openai-responses/tool-identities.ts).
  'tool_identities',
  // Gemini: `thinkingLevel` is carried as the reasoning effort.
  'thinkingLevel',
]);

export const isClientSideExtension = (key: string): boolean => clientSideExtensions.has(key);
