// A chat format's module (adapters/<format>/index.ts) from the parts only that format has. What
// every chat format shares is filled in here, once: both codecs carry the format's name, errors
// on the format's paths are written by its client codec, and each route it serves is a chat
// operation (tracing's gen_ai.operation.name).
import type { ChatClientCodec, ChatFormat, ChatUpstreamCodec } from './chat-adapter.ts';
import type { FormatModule, UpstreamSide } from './format-module.ts';

type Unnamed<T> = Omit<T, 'format'>;

export type ChatFormatSpec = Omit<FormatModule, 'name' | 'operation' | 'encodeError' | 'client' | 'upstream'> & {
  readonly name: ChatFormat;
  readonly client: Unnamed<ChatClientCodec>;
  readonly upstream: Omit<UpstreamSide, 'codec'> & { readonly codec: Unnamed<ChatUpstreamCodec> };
};

/** A chat format's module: unlike other formats', it always has both sides. */
export type ChatFormatModule = FormatModule & {
  readonly client: ChatClientCodec;
  readonly upstream: UpstreamSide;
};

export function chatFormat(spec: ChatFormatSpec): ChatFormatModule {
  const client: ChatClientCodec = { ...spec.client, format: spec.name };
  return {
    ...spec,
    operation: () => 'chat',
    encodeError: client.encodeError,
    client,
    upstream: { ...spec.upstream, codec: { ...spec.upstream.codec, format: spec.name } },
  };
}
