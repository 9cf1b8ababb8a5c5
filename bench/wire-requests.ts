// The client side of each wire format: the request a real SDK sends, the same bytes whether it
// goes straight to the mock upstream or through a gateway, so "direct" and "through" differ only
// by the hop being measured.

export type WireFormat = 'messages' | 'chat' | 'responses' | 'gemini';

export type ClientRequest = { path: string; headers: Record<string, string>; body: string };

/** A short, realistic conversation: a system prompt, one earlier turn, a question (~1 KB). */
const system =
  'You are a concise assistant for a travel company. Answer in plain English, at most three sentences, and never invent prices, dates or availability; when unsure, say so and suggest checking the booking page.';
const turns: { role: 'user' | 'assistant'; text: string }[] = [
  {
    role: 'user',
    text: 'We are four adults flying from Lisbon to Kyoto in late March. Which airport should we aim for?',
  },
  {
    role: 'assistant',
    text: 'Kansai International (KIX) is the closest major airport to Kyoto; the Haruka express reaches Kyoto Station in about 75 minutes.',
  },
  { role: 'user', text: 'Is cherry blossom season likely then, and should we book the train in advance?' },
];

const json = (v: unknown): string => JSON.stringify(v);

function messages(model: string, key: string, stream: boolean): ClientRequest {
  return {
    path: '/v1/messages',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body: json({
      model,
      max_tokens: 256,
      system,
      messages: turns.map((t) => ({ role: t.role, content: t.text })),
      temperature: 0.7,
      ...(stream ? { stream: true } : {}),
    }),
  };
}

function chat(model: string, key: string, stream: boolean): ClientRequest {
  return {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: json({
      model,
      messages: [{ role: 'system', content: system }, ...turns.map((t) => ({ role: t.role, content: t.text }))],
      max_completion_tokens: 256,
      temperature: 0.7,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  };
}

function responses(model: string, key: string, stream: boolean): ClientRequest {
  return {
    path: '/v1/responses',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: json({
      model,
      instructions: system,
      input: turns.map((t) => ({ role: t.role, content: t.text })),
      max_output_tokens: 256,
      temperature: 0.7,
      store: false,
      ...(stream ? { stream: true } : {}),
    }),
  };
}

function gemini(model: string, key: string, stream: boolean): ClientRequest {
  return {
    path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: json({
      systemInstruction: { parts: [{ text: system }] },
      contents: turns.map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: [{ text: t.text }] })),
      generationConfig: { maxOutputTokens: 256, temperature: 0.7 },
    }),
  };
}

export const clientRequest: Record<WireFormat, (model: string, key: string, stream: boolean) => ClientRequest> = {
  messages,
  chat,
  responses,
  gemini,
};

/** What the last bytes of a whole stream contain in each format, to tell a whole stream from a cut one. */
export const streamEndMarker: Record<WireFormat, string> = {
  messages: 'message_stop',
  chat: '[DONE]',
  responses: 'response.completed',
  gemini: 'finishReason',
};
