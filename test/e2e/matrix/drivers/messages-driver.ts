// Family E through the official Anthropic SDK.
import Anthropic from '@anthropic-ai/sdk';
import type { Driver, ErrorOutcome, ReasoningOutcome, ToolCallOutcome, ToolDef } from './driver.ts';
import type { JsonSchema } from '../fixtures.ts';
import { reasoningBudget } from '../fixtures.ts';

type Block = Anthropic.ContentBlock;
const textOf = (content: Block[]): string => content.map((b) => (b.type === 'text' ? b.text : '')).join('');

export function messagesDriver(baseURL: string, apiKey: string): Driver {
  const client = new Anthropic({ apiKey, baseURL, maxRetries: 0 });
  const tool = (d: ToolDef): Anthropic.Tool => ({
    name: d.name,
    description: d.description,
    input_schema: d.schema as Anthropic.Tool.InputSchema,
  });
  return {
    family: 'messages',
    streamsArgumentText: true,
    stopWords: { stop: 'end_turn', tool: 'tool_use' },
    // Pass-through relays Anthropic's own `api_error`; translation answers in the spec's words.
    errorWords: { 429: ['rate_limit_error'], 500: ['server_error', 'api_error'] },
    errorWord: (body) => (body as { error?: { type?: string } } | undefined)?.error?.type,

    async text(model, system, prompt) {
      const msg = await client.messages.create({
        model,
        max_tokens: 256,
        system,
        messages: [{ role: 'user', content: prompt }],
      });
      return {
        text: textOf(msg.content),
        finish: msg.stop_reason ?? '',
        model: msg.model,
        usage: { input: msg.usage.input_tokens, output: msg.usage.output_tokens },
      };
    },

    async stream(model, prompt) {
      const s = client.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: prompt }] });
      const deltas: string[] = [];
      s.on('text', (d) => deltas.push(d));
      const msg = await s.finalMessage();
      return { deltas, text: textOf(msg.content), finish: msg.stop_reason ?? '' };
    },

    async toolCall(model, prompt, d) {
      const s = client.messages.stream({
        model,
        max_tokens: 512,
        tools: [tool(d)],
        tool_choice: { type: 'tool', name: d.name },
        messages: [{ role: 'user', content: prompt }],
      });
      const pieces: string[] = [];
      s.on('streamEvent', (e) => {
        if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') pieces.push(e.delta.partial_json);
      });
      const msg = await s.finalMessage();
      const use = msg.content.find((b) => b.type === 'tool_use');
      if (!use || use.type !== 'tool_use') throw new Error(`no tool_use block in ${JSON.stringify(msg.content)}`);
      const history: Anthropic.MessageParam[] = [
        { role: 'user', content: prompt },
        { role: 'assistant', content: msg.content },
      ];
      return {
        pieces,
        call: { id: use.id, name: use.name, args: use.input as Record<string, unknown> },
        finish: msg.stop_reason ?? '',
        history,
      };
    },

    async toolResultTurn(model, prev: ToolCallOutcome, d, result) {
      const history = prev.history as Anthropic.MessageParam[];
      const msg = await client.messages.create({
        model,
        max_tokens: 256,
        tools: [tool(d)],
        messages: [
          ...history,
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: prev.call.id ?? '', content: result }] },
        ],
      });
      return { text: textOf(msg.content) };
    },

    async image(model, png, prompt) {
      const msg = await client.messages.create({
        model,
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              { type: 'text', text: prompt },
            ],
          },
        ],
      });
      return { text: textOf(msg.content) };
    },

    async jsonSchema(model, schema: JsonSchema, prompt) {
      // Structured outputs: `output_config.format` (https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs).
      const body = {
        model,
        max_tokens: 256,
        messages: [{ role: 'user' as const, content: prompt }],
        output_config: { format: { type: 'json_schema', schema } },
      };
      const msg = await client.messages.create(body as Anthropic.MessageCreateParamsNonStreaming);
      return { text: textOf(msg.content) };
    },

    async reasoning(model, prompt) {
      const s = client.messages.stream({
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: reasoningBudget },
        messages: [{ role: 'user', content: prompt }],
      });
      const msg = await s.finalMessage();
      const thinking = msg.content.find((b) => b.type === 'thinking');
      return {
        thinking: thinking?.type === 'thinking' ? thinking.thinking : undefined,
        token: thinking?.type === 'thinking' && thinking.signature !== '' ? thinking.signature : undefined,
        text: textOf(msg.content),
        history: [
          { role: 'user', content: prompt },
          { role: 'assistant', content: msg.content },
        ] satisfies Anthropic.MessageParam[],
      };
    },

    async reasoningContinue(model, prev: ReasoningOutcome, prompt) {
      const msg = await client.messages.create({
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: reasoningBudget },
        messages: [...(prev.history as Anthropic.MessageParam[]), { role: 'user', content: prompt }],
      });
      return { text: textOf(msg.content) };
    },

    async error(model): Promise<ErrorOutcome> {
      const e = await client.messages
        .create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'x' }] })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      if (!(e instanceof Anthropic.APIError)) throw new Error(`expected an APIError, got ${String(e)}`);
      return { status: e.status ?? 0, body: e.error, headers: e.headers };
    },
  };
}
