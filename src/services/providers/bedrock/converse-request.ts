// IR ChatRequest → a Bedrock Converse request body, for any model Bedrock serves
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html). Pure:
// blobs (image and document bytes) are base64 in the JSON, as AWS's JSON protocol writes them.
import { hostedPartText } from '../../../../adapters/shared/hosted-part-text.ts';
import type { ChatRequest, MediaSource, Part, TextPart, Tool, ToolChoice } from '../../../ir/chat-request.ts';
import { invalid } from '../../../ir/gateway-error.ts';
import { assertNever } from '../../../ir/stream-event.ts';
import type { WarningSink } from '../../../../adapters/shared/chat-adapter.ts';
import { converseReasoning, encodeReasoningBlock } from './converse-reasoning.ts';

type Json = Record<string, unknown>;
type ConverseMessage = { role: 'user' | 'assistant'; content: Json[] };

/** Converse's image formats, by media type. */
const imageFormats: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const documentFormats: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/html': 'html',
};

export function encodeConverseRequest(req: ChatRequest, model: string, warn: WarningSink): Json {
  const system: Json[] = req.system.map((p) => ({ text: p.text }));
  const messages: ConverseMessage[] = [];
  req.messages.forEach((m, i) => {
    if (m.role === 'system') return void system.push(...m.parts.map((p: TextPart) => ({ text: p.text })));
    const content = m.parts.flatMap((p, j) => encodePart(p, `messages.${i}.content.${j}`, warn));
    if (content.length === 0) return;
    // Converse wants turns to alternate; consecutive turns of one role become one.
    const prev = messages.at(-1);
    if (prev?.role === m.role) prev.content.push(...content);
    else messages.push({ role: m.role, content });
  });
  const body: Json = { messages };
  if (system.length > 0) body.system = system;
  const reasoning = converseReasoning(req, model, warn);
  const inference: Json = {};
  const maxTokens = reasoning.maxTokens ?? req.maxTokens;
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  Object.assign(inference, sampling(req, reasoning.thinking, warn));
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  // top_k and reasoning are model fields, not Converse's: Anthropic, Mistral and Cohere models read top_k there.
  const fields: Json = { ...reasoning.fields };
  if (req.sampling.topK !== undefined) {
    if (reasoning.thinking) warn('top_k', 'Claude takes no top_k with thinking enabled; dropped');
    else fields.top_k = req.sampling.topK;
  }
  if (Object.keys(fields).length > 0) body.additionalModelRequestFields = fields;
  const tools = req.tools.flatMap((t, n) => encodeTool(t, n, warn));
  if (tools.length > 0 && req.toolChoice?.type !== 'none') {
    const toolConfig: Json = { tools };
    const choice = req.toolChoice && encodeToolChoice(req.toolChoice);
    if (choice) toolConfig.toolChoice = choice;
    body.toolConfig = toolConfig;
  }
  warnUnmapped(req, warn);
  return body;
}

function encodePart(p: Part, field: string, warn: WarningSink): Json[] {
  switch (p.type) {
    case 'text':
      return p.text === '' ? [] : [{ text: p.text }];
    case 'image':
      return encodeImage(p.source, field, warn);
    case 'file': {
      const s = p.source;
      const format = documentFormats[s.kind === 'base64' || s.kind === 'text' ? s.mediaType : ''];
      if (!format || (s.kind !== 'base64' && s.kind !== 'text')) {
        warn(field, 'Bedrock Converse takes documents as bytes of pdf, csv, txt, md or html only; dropped');
        return [];
      }
      const bytes = s.kind === 'base64' ? s.data : Buffer.from(s.text).toString('base64');
      // Converse document names: letters, digits, spaces, hyphens, brackets.
      const name = (p.title ?? p.filename ?? 'document').replace(/[^A-Za-z0-9 ()[\]-]/g, ' ').slice(0, 200);
      return [{ document: { format, name, source: { bytes } } }];
    }
    case 'tool-call':
      return [{ toolUse: { toolUseId: p.id, name: p.name, input: parseArgs(p.args, field) } }];
    case 'tool-result':
      return [
        {
          toolResult: {
            toolUseId: p.callId,
            content: p.content.flatMap((c, k) =>
              c.type === 'text' ? [{ text: c.text }] : encodeImage(c.source, `${field}.content.${k}`, warn),
            ),
            ...(p.isError ? { status: 'error' } : {}),
          },
        },
      ];
    case 'reasoning':
      return encodeReasoningBlock(p, field, warn);
    case 'code':
    case 'code-result':
      warn(field, `Bedrock Converse cannot carry earlier ${p.type} parts; dropped`);
      return [];
    case 'refusal':
      return [{ text: p.text }];
    case 'hosted-call':
    case 'hosted-result':
      // A search or fetch polygate ran (docs/hosted-tools.md) reaches every upstream as text.
      return [{ text: hostedPartText(p) }];
    default:
      return assertNever(p, 'part');
  }
}

function encodeImage(s: MediaSource, field: string, warn: WarningSink): Json[] {
  const format = s.kind === 'base64' ? imageFormats[s.mediaType] : undefined;
  if (s.kind !== 'base64' || !format) {
    warn(field, 'Bedrock Converse takes images as png, jpeg, gif or webp bytes only; dropped');
    return [];
  }
  return [{ image: { format, source: { bytes: s.data } } }];
}

function parseArgs(args: string, field: string): unknown {
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    throw invalid(field, `${field}: tool call arguments are not JSON; Bedrock Converse takes them as an object`);
  }
}

function encodeTool(t: Tool, n: number, warn: WarningSink): Json[] {
  if (t.type === 'builtin') {
    warn(`tools.${n}`, `the Bedrock Converse upstream cannot run the built-in ${t.kind} tool; dropped`);
    return [];
  }
  return [
    {
      toolSpec: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        inputSchema: { json: t.parameters },
      },
    },
  ];
}

function encodeToolChoice(c: ToolChoice): Json | undefined {
  switch (c.type) {
    case 'auto':
      return { auto: {} };
    case 'none':
      return undefined;
    case 'required':
      return { any: {} };
    case 'tool':
      return { tool: { name: c.name } };
    case 'allowed':
      return c.mode === 'required' ? { any: {} } : { auto: {} };
    default:
      return assertNever(c, 'tool choice');
  }
}

/** Converse's sampling knobs; with Claude's thinking on, what Claude refuses is dropped with a warning. */
function sampling(req: ChatRequest, thinking: boolean, warn: WarningSink): Json {
  const s = req.sampling;
  const out: Json = {};
  if (s.temperature !== undefined) {
    // https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#feature-compatibility
    if (thinking && s.temperature !== 1)
      warn('temperature', 'Claude takes no temperature with thinking enabled; dropped');
    else out.temperature = s.temperature;
  }
  if (s.topP !== undefined) {
    if (thinking && s.topP < 0.95) warn('top_p', 'Claude takes only 0.95 to 1 with thinking enabled; dropped');
    else out.topP = s.topP;
  }
  if (s.stop?.length) out.stopSequences = s.stop;
  return out;
}

/** What Converse has no field for is named in a warning, never dropped silently. */
function warnUnmapped(req: ChatRequest, warn: WarningSink): void {
  if (req.output && req.output.type !== 'text')
    warn('response_format', 'Bedrock Converse has no structured output field; the schema was not sent');
  const s = req.sampling;
  for (const [field, v] of [
    ['seed', s.seed],
    ['presence_penalty', s.presencePenalty],
    ['frequency_penalty', s.frequencyPenalty],
    ['logprobs', s.logprobs],
  ] as const)
    if (v !== undefined) warn(field, `Bedrock Converse has no ${field}; dropped`);
}
