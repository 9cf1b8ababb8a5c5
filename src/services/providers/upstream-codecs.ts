import type { ChatUpstreamCodec } from '../../../adapters/shared/chat-adapter.ts';
import type { UpstreamSide } from '../../../adapters/shared/format-module.ts';
import { formatNamed } from '../../infra/formats/formats.ts';

/** The upstream side of a chat format by name (src/infra/formats/formats.ts); undefined for formats no chat upstream speaks. */
export const upstreamSideOf = (format: string): UpstreamSide | undefined => formatNamed(format)?.upstream;

/** The codec polygate speaks to an upstream of `format`; the format must have an upstream side. */
export function upstreamCodecOf(format: string): ChatUpstreamCodec {
  // Every translated call asks (src/families/chat/chat-handler.ts): the format list is fixed, so each answer is kept.
  let codec = codecs.get(format);
  if (codec) return codec;
  const side = upstreamSideOf(format);
  if (!side) throw new Error(`format '${format}' has no upstream codec`);
  codecs.set(format, (codec = side.codec));
  return codec;
}

const codecs = new Map<string, ChatUpstreamCodec>();
