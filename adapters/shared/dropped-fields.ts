// Open world on translated routes (docs/open-world.md): what a client decoder meets but the IR cannot hold
// (a tool, item or content type newer than polygate, a hosted-tool call only its provider can
// read) is no error. The decoder notes it here; the notes go into `extensions` under the field's
// param path (`tools[4]`, `input[7]`, `messages[2].content[1]`), where every upstream encoder
// names each unknown extension in a warning (x-polygate-warnings, the warnings metric, the log
// line). The value is only the wire type, never the field's content, which may hold secrets
// (an MCP server's headers) or be large. A same-format relay sends the body as it came.
// The notes go into the client format's own namespace (adapters/shared/format-extensions.ts).
// A note with its own `message` (an enum word read as another or left out, adapters/shared/open-enum.ts)
// is no option of the format: it goes into ChatRequest.unmapped, which every translated route warns.
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { WireFormat } from '../../src/ir/wire-format.ts';
import { extensionsOf } from './format-extensions.ts';

export type DroppedField = { field: string; value: string; message?: string };

export function recordDropped(req: ChatRequest, format: WireFormat, dropped: readonly DroppedField[]): void {
  for (const d of dropped) {
    if (d.message !== undefined) (req.unmapped ??= []).push({ field: d.field, message: d.message });
    else extensionsOf(req, format)[d.field] = d.value;
  }
}
