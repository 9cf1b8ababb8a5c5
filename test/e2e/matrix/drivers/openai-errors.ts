// The error words of both OpenAI families (Chat Completions and Responses): one error envelope.
import type { Driver } from './driver.ts';

export const openaiErrors: Pick<Driver, 'errorWords' | 'errorWord'> = {
  errorWords: { 429: ['rate_limit_exceeded'], 500: ['server_error'] },
  // OpenAI's 429 carries the word in `code`, a 500 in `type`.
  errorWord: (body) => {
    const e =
      (body as { error?: { code?: string | null; type?: string } } | undefined)?.error ??
      (body as { code?: string; type?: string } | undefined);
    return e?.code ?? e?.type;
  },
};
