// The namespace rule for ChatRequest.extensions (docs/architecture.md "Cross-format data"): an
// option only one format can name lives under that format's name, written by its decoder and read
// only by its own encoder, so a same-format route keeps it. Every other encoder rejects the ones
// that change the answer (400 naming field and provider) and names the rest in a warning
// (x-polygate-warnings, the warnings metric, the log line): never sent on under a borrowed name,
// never dropped silently.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { WireFormat } from '../../src/ir/wire-format.ts';
import type { WarningSink } from './chat-adapter.ts';
import { isClientSideExtension } from './client-side-extensions.ts';
import { outputChangingExtension } from './output-changing-extensions.ts';

/** The format's own options (an empty object when it has none). */
export const ownExtensions = (
  req: Pick<ChatRequest, 'extensions'>,
  format: WireFormat,
): Readonly<Record<string, unknown>> => req.extensions[format] ?? {};

/** The namespace a decoder writes its options into, created on first use. */
export function extensionsOf(req: Pick<ChatRequest, 'extensions'>, format: WireFormat): Record<string, unknown> {
  const own = req.extensions[format] ?? {};
  req.extensions[format] = own;
  return own;
}

/**
 * What an encoder for `format` does with every other format's options: those the client's side
 * of polygate honours itself are skipped; one that changes the answer is refused; the rest are
 * named in a warning with the format they belong to.
 */
export function dropForeignExtensions(
  req: Pick<ChatRequest, 'extensions'>,
  format: WireFormat,
  warn: WarningSink,
): void {
  for (const [from, options] of Object.entries(req.extensions)) {
    if (from === format || options === undefined) continue;
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined || isClientSideExtension(from as WireFormat, key)) continue;
      const rejected = outputChangingExtension(key, value, format);
      if (rejected) throw rejected;
      warn(key, `an option only ${from} has: the ${format} upstream has no field for it; dropped`);
    }
  }
}
