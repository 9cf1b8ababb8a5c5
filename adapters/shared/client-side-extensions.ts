// Options a client decoder records for its own encoder or for polygate's own handling, or that the
// IR already carries in another form, by the format whose namespace holds them. They are never
// sent upstream as such, and not being sent is not a drop: an upstream encoder skips them instead
// of warning (docs/open-world.md; "nothing is silently dropped" is about fields the upstream would
// have honoured).
import type { WireFormat } from '../../src/ir/wire-format.ts';

const clientSide: { [F in WireFormat]?: ReadonlySet<string> } = {
  'openai-responses': new Set([
    // `instructions` travels as the system prompt; the key only lets the response echo it.
    'instructions',
    // `include` asks polygate's answer for extra fields (encrypted reasoning; logprobs are mapped
    // to sampling.logprobs); the client encoder honours it.
    'include',
    // `stream_options` (include_obfuscation) shapes polygate's own stream.
    'stream_options',
    // polygate stores the conversation itself (src/services/sessions/responses-session.ts).
    'store',
    // The wire name and namespace of each flattened namespaced tool, for the client encoder to
    // restore (adapters/openai-responses/tool-identities.ts).
    'tool_identities',
  ]),
  // Whether polygate's own stream ends with a usage chunk.
  'openai-chat': new Set(['stream_options.include_usage', 'stream_options.include_obfuscation']),
  gemini: new Set([
    // `text/x.enum` is carried as a string-enum schema; the client encoder unquotes the value.
    'responseMimeType',
    // `thinkingLevel` is carried as the reasoning effort.
    'thinkingLevel',
  ]),
};

export const isClientSideExtension = (format: WireFormat, key: string): boolean =>
  clientSide[format]?.has(key) === true;
