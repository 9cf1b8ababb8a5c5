// Family D through the official openai SDK (responses.create and responses.stream()). Every call
// sets `store: false`: the matrix tests translation, not stored state.
import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseInputItem,
  ResponseOutputItem,
  Response,
} from 'openai/resources/responses/responses';
import { openaiErrors } from './openai-errors.ts';
import type { Driver, ErrorOutcome, ReasoningOutcome, ToolCallOutcome, ToolDef } from './driver.ts';
import { reasoningEffort, type JsonSchema } from '../fixtures.ts';

/** The finish a Responses client sees: the status, and the reason when incomplete. */
const finishOf = (r: Response): string =>
  r.status === 'incomplete' ? `incomplete:${r.incomplete_details?.reason ?? ''}` : (r.status ?? '');

/** Output items as the next request's input, the way the SDK docs replay them (store: false). */
const asInput = (items: ResponseOutputItem[]): ResponseInputItem[] => items as ResponseInputItem[];

export function responsesDriver(baseURL: string, apiKey: string): Driver {
  const client = new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, maxRetries: 0 });
  const tool = (d: ToolDef): FunctionTool => ({
    type: 'function',
    name: d.name,
    description: d.description,
    parameters: d.schema,
    strict: false,
  });
  return {
    family: 'responses',
    streamsArgumentText: true,
    stopWords: { stop: 'completed', tool: 'completed' },
    ...openaiErrors,

    async text(model, system, prompt) {
      const r = await client.responses.create({ model, instructions: system, input: prompt, store: false });
      return {
        text: r.output_text,
        finish: finishOf(r),
        model: r.model,
        usage: { input: r.usage?.input_tokens ?? 0, output: r.usage?.output_tokens ?? 0 },
      };
    },

    async stream(model, prompt) {
      const s = client.responses.stream({ model, input: prompt, store: false });
      const deltas: string[] = [];
      s.on('response.output_text.delta', (e) => deltas.push(e.delta));
      const r = await s.finalResponse();
      return { deltas, text: r.output_text, finish: finishOf(r) };
    },

    async toolCall(model, prompt, d) {
      const s = client.responses.stream({
        model,
        input: prompt,
        tools: [tool(d)],
        tool_choice: { type: 'function', name: d.name },
        store: false,
      });
      const pieces: string[] = [];
      s.on('response.function_call_arguments.delta', (e) => pieces.push(e.delta));
      const r = await s.finalResponse();
      const call = r.output.find((i) => i.type === 'function_call');
      if (!call || call.type !== 'function_call') throw new Error(`no function_call in ${JSON.stringify(r.output)}`);
      const history: ResponseInputItem[] = [{ role: 'user', content: prompt }, ...asInput(r.output)];
      return {
        pieces,
        call: { id: call.call_id, name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> },
        finish: finishOf(r),
        history,
      };
    },

    async toolResultTurn(model, prev: ToolCallOutcome, d, result) {
      const r = await client.responses.create({
        model,
        tools: [tool(d)],
        store: false,
        input: [
          ...(prev.history as ResponseInputItem[]),
          { type: 'function_call_output', call_id: prev.call.id ?? '', output: result },
        ],
      });
      return { text: r.output_text };
    },

    async image(model, png, prompt) {
      const r = await client.responses.create({
        model,
        store: false,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
              { type: 'input_text', text: prompt },
            ],
          },
        ],
      });
      return { text: r.output_text };
    },

    async jsonSchema(model, schema: JsonSchema, prompt) {
      const r = await client.responses.create({
        model,
        input: prompt,
        store: false,
        text: { format: { type: 'json_schema', name: 'forecast', schema, strict: true } },
      });
      return { text: r.output_text };
    },

    async reasoning(model, prompt) {
      // Stateless reasoning: the encrypted content comes back and is replayed (store: false).
      const s = client.responses.stream({
        model,
        input: prompt,
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: reasoningEffort, summary: 'auto' },
      });
      const r = await s.finalResponse();
      const item = r.output.find((i) => i.type === 'reasoning');
      const thinking = item?.type === 'reasoning' ? item.summary.map((x) => x.text).join('\n\n') : undefined;
      const token = item?.type === 'reasoning' ? (item.encrypted_content ?? undefined) : undefined;
      return {
        thinking,
        token,
        text: r.output_text,
        history: [{ role: 'user', content: prompt }, ...asInput(r.output)],
      };
    },

    async reasoningContinue(model, prev: ReasoningOutcome, prompt) {
      const r = await client.responses.create({
        model,
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: reasoningEffort, summary: 'auto' },
        input: [...(prev.history as ResponseInputItem[]), { role: 'user', content: prompt }],
      });
      return { text: r.output_text };
    },

    async error(model): Promise<ErrorOutcome> {
      const e = await client.responses.create({ model, input: 'x', store: false }).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (!(e instanceof OpenAI.APIError)) throw new Error(`expected an APIError, got ${String(e)}`);
      return { status: e.status ?? 0, body: e.error, headers: e.headers };
    },
  };
}
