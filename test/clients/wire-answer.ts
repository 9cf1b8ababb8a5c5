// Is this a well-formed answer in the client's own format? Reads a response body (JSON, or an
// SSE stream) the way each family's SDK would and lists what is wrong; an empty list means the
// client would have accepted it. Formats as in the emulators of test/emulators/.
export type Family = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

import type { JsonObject as Json } from '../helpers/json.ts';
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The family a request path belongs to, or undefined for other endpoints. */
export function familyOf(path: string): Family | undefined {
  const p = path.split('?')[0]!;
  if (p === '/v1/messages') return 'anthropic';
  if (p === '/v1/chat/completions') return 'openai-chat';
  if (p === '/v1/responses') return 'openai-responses';
  if (/^\/v1(beta)?\/models\/[^/:]+:(stream)?[gG]enerateContent$/.test(p)) return 'gemini';
  return undefined;
}

export type SseFrame = { event?: string; data: string };

export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) frames.push({ event, data: data.join('\n') });
  }
  return frames;
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
};

export function checkAnswer(family: Family, stream: boolean, contentType: string, body: string): string[] {
  if (!stream) {
    if (!contentType.includes('application/json')) return [`content-type ${contentType}, not JSON`];
    const b = parse(body);
    if (!isObj(b)) return ['body is not a JSON object'];
    return checkWhole(family, b);
  }
  if (!contentType.includes('text/event-stream')) return [`content-type ${contentType}, not an event stream`];
  return checkStream(family, parseSse(body));
}

function checkWhole(family: Family, b: Json): string[] {
  switch (family) {
    case 'anthropic':
      return b.type === 'message' && Array.isArray(b.content) && typeof b.stop_reason === 'string'
        ? []
        : [`not a Message: ${JSON.stringify(b).slice(0, 300)}`];
    case 'openai-chat': {
      const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
      return b.object === 'chat.completion' &&
        isObj(choice) &&
        isObj(choice.message) &&
        typeof choice.finish_reason === 'string'
        ? []
        : [`not a chat.completion: ${JSON.stringify(b).slice(0, 300)}`];
    }
    case 'openai-responses':
      return b.object === 'response' && b.status === 'completed' && Array.isArray(b.output)
        ? []
        : [`not a completed response: ${JSON.stringify(b).slice(0, 300)}`];
    case 'gemini': {
      const c = Array.isArray(b.candidates) ? b.candidates[0] : undefined;
      return isObj(c) && isObj(c.content) && typeof c.finishReason === 'string'
        ? []
        : [`not a GenerateContentResponse: ${JSON.stringify(b).slice(0, 300)}`];
    }
    default: {
      const never: never = family;
      return [`unknown family ${String(never)}`];
    }
  }
}

function checkStream(family: Family, frames: SseFrame[]): string[] {
  if (frames.length === 0) return ['empty stream'];
  const datas = frames.map((f) => parse(f.data));
  const types = datas.map((d) => (isObj(d) && typeof d.type === 'string' ? d.type : undefined));
  switch (family) {
    case 'anthropic': {
      const errors = types.includes('error') ? [`error event: ${frames.find((f) => f.event === 'error')?.data}`] : [];
      if (types[0] !== 'message_start') errors.push(`first event ${types[0]}, not message_start`);
      if (types.at(-1) !== 'message_stop') errors.push(`last event ${types.at(-1)}, not message_stop`);
      if (!types.includes('message_delta')) errors.push('no message_delta (stop reason)');
      return errors;
    }
    case 'openai-chat': {
      const errors: string[] = [];
      if (frames.at(-1)?.data !== '[DONE]') errors.push('stream does not end with data: [DONE]');
      const chunks = datas.filter(isObj);
      if (chunks.some((c) => 'error' in c))
        errors.push(`error chunk: ${JSON.stringify(chunks.find((c) => 'error' in c))}`);
      if (!chunks.every((c) => c.object === 'chat.completion.chunk'))
        errors.push('a chunk is not a chat.completion.chunk');
      const finished = chunks.some(
        (c) => Array.isArray(c.choices) && c.choices.some((x) => isObj(x) && typeof x.finish_reason === 'string'),
      );
      if (!finished) errors.push('no chunk carries a finish_reason');
      return errors;
    }
    case 'openai-responses': {
      const errors: string[] = [];
      if (types[0] !== 'response.created') errors.push(`first event ${types[0]}, not response.created`);
      if (types.at(-1) !== 'response.completed')
        errors.push(`last event ${types.at(-1)}, not response.completed: ${frames.at(-1)?.data.slice(0, 300)}`);
      return errors;
    }
    case 'gemini': {
      const chunks = datas.filter(isObj);
      if (chunks.length !== frames.length) return ['a data frame is not JSON'];
      if (chunks.some((c) => 'error' in c)) return [`error chunk: ${JSON.stringify(chunks.find((c) => 'error' in c))}`];
      const last = chunks.at(-1);
      const c = last && Array.isArray(last.candidates) ? last.candidates[0] : undefined;
      return isObj(c) && typeof c.finishReason === 'string'
        ? []
        : ['the last chunk has no candidate with a finishReason'];
    }
    default: {
      const never: never = family;
      return [`unknown family ${String(never)}`];
    }
  }
}
