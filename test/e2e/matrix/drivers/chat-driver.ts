// Chat Completions (`/v1/chat/completions`) through the official openai SDK.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { openaiErrors } from './openai-errors.ts';
import type { Driver, ErrorOutcome, ToolCallOutcome, ToolDef } from './driver.ts';
import { reasoningEffort, type JsonSchema } from '../fixtures.ts';

export function chatDriver(baseURL: string, apiKey: string): Driver {
  const client = new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const tool = (d: ToolDef): ChatCompletionTool => ({
    type: 'function',
    function: { name: d.name, description: d.description, parameters: d.schema },
  });
  return {
    family: 'chat',
    streamsArgumentText: true,
    stopWords: { stop: 'stop', tool: 'tool_calls' },
    ...openaiErrors,

    async text(model, system, prompt) {
      const r = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: prompt },
        ],
      });
      return {
        text: r.choices[0].message.content ?? '',
        finish: r.choices[0].finish_reason,
        model: r.model,
        usage: { input: r.usage?.prompt_tokens ?? 0, output: r.usage?.completion_tokens ?? 0 },
      };
    },

    async stream(model, prompt) {
      const s = client.chat.completions.stream({ model, messages: [{ role: 'user', content: prompt }] });
      const deltas: string[] = [];
      s.on('content', (d) => deltas.push(d));
      const r = await s.finalChatCompletion();
      return { deltas, text: r.choices[0].message.content ?? '', finish: r.choices[0].finish_reason };
    },

    async toolCall(model, prompt, d) {
      const s = client.chat.completions.stream({
        model,
        messages: [{ role: 'user', content: prompt }],
        tools: [tool(d)],
        tool_choice: { type: 'function', function: { name: d.name } },
      });
      const pieces: string[] = [];
      s.on('chunk', (c) => {
        for (const tc of c.choices[0]?.delta.tool_calls ?? [])
          if (tc.function?.arguments) pieces.push(tc.function.arguments);
      });
      const r = await s.finalChatCompletion();
      const m = r.choices[0].message;
      const call = m.tool_calls?.[0];
      if (!call || call.type !== 'function') throw new Error(`no tool call in ${JSON.stringify(m)}`);
      const history: ChatCompletionMessageParam[] = [
        { role: 'user', content: prompt },
        {
          role: 'assistant',
          content: m.content,
          tool_calls: [{ id: call.id, type: 'function', function: call.function }],
        },
      ];
      return {
        pieces,
        call: {
          id: call.id,
          name: call.function.name,
          args: JSON.parse(call.function.arguments) as Record<string, unknown>,
        },
        finish: r.choices[0].finish_reason,
        history,
      };
    },

    async toolResultTurn(model, prev: ToolCallOutcome, d, result) {
      const r = await client.chat.completions.create({
        model,
        tools: [tool(d)],
        messages: [
          ...(prev.history as ChatCompletionMessageParam[]),
          { role: 'tool', tool_call_id: prev.call.id ?? '', content: result },
        ],
      });
      return { text: r.choices[0].message.content ?? '' };
    },

    async image(model, png, prompt) {
      const r = await client.chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
              { type: 'text', text: prompt },
            ],
          },
        ],
      });
      return { text: r.choices[0].message.content ?? '' };
    },

    async jsonSchema(model, schema: JsonSchema, prompt) {
      const r = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: prompt }],
        response_format: { type: 'json_schema', json_schema: { name: 'forecast', schema, strict: true } },
      });
      return { text: r.choices[0].message.content ?? '' };
    },

    // Chat Completions has reasoning_effort but returns no reasoning text and no token to send back.
    async reasoning(model, prompt) {
      const s = client.chat.completions.stream({
        model,
        reasoning_effort: reasoningEffort,
        messages: [{ role: 'user', content: prompt }],
      });
      const r = await s.finalChatCompletion();
      const text = r.choices[0].message.content ?? '';
      return {
        thinking: undefined,
        token: undefined,
        text,
        history: [
          { role: 'user', content: prompt },
          { role: 'assistant', content: text },
        ],
      };
    },

    async reasoningContinue(model, prev, prompt) {
      const r = await client.chat.completions.create({
        model,
        reasoning_effort: reasoningEffort,
        messages: [...(prev.history as ChatCompletionMessageParam[]), { role: 'user', content: prompt }],
      });
      return { text: r.choices[0].message.content ?? '' };
    },

    async error(model): Promise<ErrorOutcome> {
      const e = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (!(e instanceof OpenAI.APIError)) throw new Error(`expected an APIError, got ${String(e)}`);
      return { status: e.status ?? 0, body: e.error, headers: e.headers };
    },
  };
}
