// The official `openai` SDK against what polygate's client codec writes: an in-process HTTP server
// serves encodeResult / createStreamEncoder output for canned IR results and event lists, and the
// SDK (whose responses.stream() checks every item id, index and sequence) must parse all of it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { toolCall } from '../ir-messages.ts';
import { finishEvent, reasoningPart, textPart, toolInputPart } from '../stream-events.ts';
import OpenAI from 'openai';
import type { ChatResult } from '../../../src/ir/chat-result.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../../src/ir/stream-event.ts';
import { responsesClientCodec as codec } from '../../../adapters/openai-responses/index.ts';
import { responsesUsage } from './wire-usage.ts';

const usage = { inputTokens: 11, outputTokens: 7, reasoningTokens: 3, cacheReadTokens: 2 };
const results: Record<string, ChatResult> = {
  text: {
    id: 'up-1',
    model: 'up',
    parts: [{ type: 'text', text: 'Hello from polygate.' }],
    finish: { reason: 'stop', raw: 'stop' },
    usage,
  },
  everything: {
    id: 'up-2',
    model: 'up',
    parts: [
      { type: 'reasoning', text: 'Plan.', encrypted: 'ENC', origin: 'openai-responses', signature: 'rs_abc' },
      { type: 'text', text: 'See ', citations: [{ kind: 'url', url: 'https://example.com', title: 'Ex' }] },
      { type: 'text', text: 'more.' },
      toolCall('call_1', 'lookup', '{"q":"x"}'),
    ],
    finish: { reason: 'tool-calls', raw: 'tool_use' },
    usage,
  },
};
const streams: Record<string, StreamEvent[]> = {
  text: [
    { type: 'start', id: 'up', model: 'up' },
    ...textPart(0, 'Hello ', 'stream.'),
    finishEvent('stop', 'stop', usage),
  ],
  everything: [
    { type: 'start', id: 'up', model: 'up' },
    ...reasoningPart(0, 'openai-responses', { deltas: ['Think ', 'first.'], signature: 'anthropic-signature' }),
    ...textPart(1, 'Calling.'),
    ...toolInputPart(2, 'call_7', 'lookup', '{"q":', '"x"}'),
    ...toolInputPart(3, 'call_8', 'lookup', '{}'),
    finishEvent('tool-calls', 'tool_use', usage),
  ],
  incomplete: [
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, text: 'Trunc' },
    finishEvent('length', 'max_tokens', usage),
  ],
  broken: [
    { type: 'start', id: 'up', model: 'up' },
    { type: 'text-start', index: 0 },
    { type: 'text-delta', index: 0, text: 'Half' },
    { type: 'error', error: new GatewayError('upstream', 'the upstream went away') },
  ],
};

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    const request = codec.decodeRequest(JSON.parse(Buffer.concat(chunks).toString('utf8')), {
      headers: req.headers,
      params: {},
      query: {},
    });
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(codec.encodeResult(results[request.model], request)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const enc = codec.createStreamEncoder(request);
    for (const e of streams[request.model])
      for (const f of enc.push(e)) res.write(`event: ${f.event}\ndata: ${f.data}\n\n`);
    res.end();
  } catch (e) {
    const out = codec.encodeError(e instanceof GatewayError ? e : new GatewayError('internal', String(e)));
    res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
    res.end(JSON.stringify(out.body));
  }
}

const server = createServer((req, res) => void handle(req, res));
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const client = new OpenAI({
  apiKey: 'sk-x',
  baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
  maxRetries: 0,
});
t.teardown(() => new Promise<void>((ok) => server.close(() => ok())));

t.test('responses.create parses the response object; output_text is computed by the SDK', async (t) => {
  const r = await client.responses.create({ model: 'text', input: 'hi', temperature: 0.4 });
  t.match(r.id, /^resp_/);
  t.equal(r.status, 'completed');
  t.equal(r.model, 'text');
  t.equal(r.output_text, 'Hello from polygate.');
  t.equal(r.temperature, 0.4);
  t.same(r.usage, responsesUsage({ input: 11, cached: 2, output: 7, reasoning: 3, total: 18 }));
});

t.test('responses.create with reasoning, annotations and a function call', async (t) => {
  const r = await client.responses.create({
    model: 'everything',
    input: 'go',
    include: ['reasoning.encrypted_content'],
    tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} }, strict: null }],
  });
  t.same(
    r.output.map((o) => o.type),
    ['reasoning', 'message', 'function_call'],
  );
  const [rs, msg, fc] = r.output;
  if (rs.type === 'reasoning') t.same([rs.id, rs.encrypted_content, rs.summary[0]?.text], ['rs_abc', 'ENC', 'Plan.']);
  if (msg.type === 'message' && msg.content[0].type === 'output_text') {
    t.equal(msg.content[0].text, 'See more.');
    t.same(msg.content[0].annotations, [
      { type: 'url_citation', start_index: 0, end_index: 4, title: 'Ex', url: 'https://example.com' },
    ]);
  }
  if (fc.type === 'function_call') t.same([fc.call_id, fc.name, fc.arguments], ['call_1', 'lookup', '{"q":"x"}']);
  t.same(r.tools, [
    {
      type: 'function',
      description: null,
      name: 'lookup',
      parameters: { type: 'object', properties: {} },
      strict: true,
    },
  ]);
});

t.test('responses.stream().finalResponse() over a text stream', async (t) => {
  const stream = client.responses.stream({ model: 'text', input: 'hi' });
  const deltas: string[] = [];
  let last = -1;
  for await (const ev of stream) {
    t.equal(ev.sequence_number, last + 1, `${ev.type} follows in sequence`);
    last = ev.sequence_number;
    if (ev.type === 'response.output_text.delta') deltas.push(ev.delta);
  }
  const final = await stream.finalResponse();
  t.same(deltas, ['Hello ', 'stream.']);
  t.equal(final.output_text, 'Hello stream.');
  t.equal(final.status, 'completed');
  t.equal(final.usage?.total_tokens, 18);
});

t.test('responses.stream() with reasoning, text and two function calls', async (t) => {
  const stream = client.responses.stream({
    model: 'everything',
    input: 'go',
    reasoning: { effort: 'low', summary: 'auto' },
  });
  const summary: string[] = [];
  const args: string[] = [];
  for await (const ev of stream) {
    if (ev.type === 'response.reasoning_summary_text.delta') summary.push(ev.delta);
    if (ev.type === 'response.function_call_arguments.done') args.push(ev.arguments);
  }
  const final = await stream.finalResponse();
  t.equal(summary.join(''), 'Think first.');
  t.same(args, ['{"q":"x"}', '{}']);
  t.same(
    final.output.map((o) => o.type),
    ['reasoning', 'message', 'function_call', 'function_call'],
  );
  t.equal(final.output_text, 'Calling.');
  t.same(final.reasoning, { effort: 'low', summary: 'auto' });
});

t.test('response.incomplete: finalResponse resolves with the incomplete response', async (t) => {
  const final = await client.responses.stream({ model: 'incomplete', input: 'x' }).finalResponse();
  t.equal(final.status, 'incomplete');
  t.same(final.incomplete_details, { reason: 'max_output_tokens' });
  t.equal(final.output_text, 'Trunc');
});

t.test('an error mid-stream reaches the SDK as an APIError', async (t) => {
  const err = await client.responses
    .stream({ model: 'broken', input: 'x' })
    .finalResponse()
    .catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.APIError, 'APIError');
  if (err instanceof OpenAI.APIError) t.match(err.message, /the upstream went away/);
});

t.test('a validation failure is a BadRequestError naming the param', async (t) => {
  const err = await client.responses.create({ model: 'text', input: 'x', temperature: 3 }).catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.BadRequestError, 'BadRequestError');
  if (err instanceof OpenAI.BadRequestError) {
    t.equal(err.status, 400);
    t.equal(err.param, 'temperature');
    t.equal(err.type, 'invalid_request_error');
  }
});
