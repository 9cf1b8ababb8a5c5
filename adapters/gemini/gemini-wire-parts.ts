// IR part → Gemini Part pieces shared by the client result encoder and the upstream request
// encoder (https://ai.google.dev/api/caching#Part).
import type { CodePart, CodeResultPart, MediaSource } from '../../src/ir/chat-request.ts';
import { assertNever } from '../../src/ir/stream-event.ts';
import type { Json } from '../shared/narrow.ts';

export const executableCode = (p: CodePart): Json => ({
  executableCode: { language: p.language.toLowerCase() === 'python' ? 'PYTHON' : 'LANGUAGE_UNSPECIFIED', code: p.code },
});

export function codeExecutionResult(p: CodeResultPart): Json {
  const outcome = p.outcome;
  let wire: string;
  switch (outcome) {
    case 'ok':
      wire = 'OUTCOME_OK';
      break;
    case 'failed':
      wire = 'OUTCOME_FAILED';
      break;
    case 'deadline-exceeded':
      wire = 'OUTCOME_DEADLINE_EXCEEDED';
      break;
    case 'unspecified':
      wire = 'OUTCOME_UNSPECIFIED';
      break;
    default:
      return assertNever(outcome, 'code outcome');
  }
  return { codeExecutionResult: p.output === '' ? { outcome: wire } : { outcome: wire, output: p.output } };
}

/** `data:<type>;base64,<data>` → its parts; other URLs → undefined. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+)?((?:;[^;,=]+=[^;,]*)*);base64,(.*)$/s.exec(url);
  if (!m) return undefined;
  return { mediaType: m[1] ?? 'application/octet-stream', data: m[3] };
}

/**
 * A media source as inlineData (base64 or a data: URL), `{text}` for inline text documents,
 * or undefined when Gemini would need fileData (an http(s) URL or a provider file id).
 */
export function inlineMedia(src: MediaSource): Json | undefined {
  switch (src.kind) {
    case 'base64':
      return { inlineData: { mimeType: src.mediaType, data: src.data } };
    case 'url': {
      const d = parseDataUrl(src.url);
      return d ? { inlineData: { mimeType: src.mediaType ?? d.mediaType, data: d.data } } : undefined;
    }
    case 'text':
      return { text: src.text };
    case 'file-id':
      return undefined;
    default:
      return assertNever(src, 'media source');
  }
}
