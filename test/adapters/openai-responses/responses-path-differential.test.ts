// Issue #28 (session 12): the Responses-in path does less work per request, with the same bytes.
// Each rewritten step is checked against a copy of the code it replaced, over generated inputs:
// the response object's envelope (serialized byte for byte), the leading
// developer/system text of a first turn, and the options a route is sent; and the ids' form.
import t from 'tap';
import type { ChatRequest } from '../../../src/ir/chat-request.ts';
import {
  createResponsesClientCodec,
  openaiResponses,
  sequentialIds,
} from '../../../adapters/openai-responses/index.ts';
import {
  encodeUsage,
  responseEnvelope,
  type EnvelopeState,
  type Outcome,
} from '../../../adapters/openai-responses/encode-response-object.ts';
import { echoRequestFields } from '../../../adapters/openai-responses/echo-request-fields.ts';
import { randomIds } from '../../../adapters/openai-responses/responses-ids.ts';
import { newRequestId } from '../../../src/infra/http/request-id.ts';
import { randomHex } from '../../../src/infra/ids/random-pool.ts';
import type { ResponseObject } from '../../../adapters/openai-responses/responses-wire-types.ts';
import { ResponsesSession } from '../../../src/services/sessions/responses-session.ts';
import { leadingInstructions, normalizeInputItems } from '../../../src/services/sessions/input-items.ts';
import { ResponseRepository } from '../../../src/services/sessions/response-repository.ts';
import { MemoryStore } from '../../../src/infra/store/memory-store.ts';
import type { Route } from '../../../src/services/routing/model-router.ts';
import { chatRequest } from '../../helpers/chat-request.ts';

/** A seeded generator, so a failure names an input that can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const pickFrom =
  (r: () => number) =>
  <T>(xs: readonly T[]): T =>
    xs[Math.floor(r() * xs.length)];

// --- the envelope as it was before session 12 (echo fields, then a rest copy of them) ---
function envelopeBefore(request: ChatRequest, s: EnvelopeState): ResponseObject {
  const echo = echoRequestFields(request);
  const o: Outcome = s.outcome === 'in_progress' ? { status: 'in_progress', incomplete: null, error: null } : s.outcome;
  const {
    instructions,
    max_output_tokens,
    parallel_tool_calls,
    previous_response_id,
    reasoning,
    service_tier,
    ...rest
  } = echo;
  return {
    id: s.id,
    object: 'response',
    created_at: s.createdAt,
    status: o.status,
    error: o.error,
    incomplete_details: o.incomplete,
    instructions,
    max_output_tokens,
    model: request.model,
    output: s.output,
    parallel_tool_calls,
    previous_response_id,
    reasoning,
    ...(service_tier !== undefined ? { service_tier } : {}),
    store: rest.store,
    temperature: rest.temperature,
    text: rest.text,
    tool_choice: rest.tool_choice,
    tools: rest.tools,
    top_p: rest.top_p,
    truncation: rest.truncation,
    usage: s.usage ? encodeUsage(s.usage) : null,
    user: rest.user,
    metadata: rest.metadata,
  };
}

/** A Responses request body with a random subset of the fields the envelope echoes. */
function randomBody(r: () => number): Record<string, unknown> {
  const pick = pickFrom(r);
  const b: Record<string, unknown> = { model: pick(['m', 'gpt-x', 'bench-anthropic']), input: 'hi' };
  const maybe = (key: string, values: unknown[]): void => {
    if (r() < 0.5) b[key] = pick(values);
  };
  maybe('instructions', ['Be brief.', '']);
  maybe('max_output_tokens', [16, 256]);
  maybe('temperature', [0, 0.7, 2]);
  maybe('top_p', [0.1, 1]);
  maybe('store', [true, false]);
  maybe('truncation', ['auto', 'disabled']);
  maybe('service_tier', ['auto', 'default', 'flex', 'priority']);
  maybe('user', ['u-1']);
  maybe('metadata', [{ a: '1' }, {}]);
  maybe('parallel_tool_calls', [true, false]);
  maybe('previous_response_id', ['resp_abc']);
  maybe('reasoning', [{ effort: 'low' }, { effort: 'high', summary: 'auto' }]);
  maybe('include', [['reasoning.encrypted_content'], []]);
  maybe('text', [
    { format: { type: 'text' } },
    { verbosity: 'low' },
    { format: { type: 'json_schema', name: 'x', schema: { type: 'object', properties: {} } } },
  ]);
  if (r() < 0.5) {
    b.tools = [
      { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } },
      ...(r() < 0.5 ? [{ type: 'web_search' }] : []),
    ];
    maybe('tool_choice', ['auto', 'required', 'none', { type: 'function', name: 'get_weather' }]);
  }
  return b;
}

t.test('the response envelope serializes byte for byte as before, over 2,000 generated requests', async (t) => {
  const r = rng(28);
  const pick = pickFrom(r);
  const codec = createResponsesClientCodec(sequentialIds());
  const ctx = { headers: {}, params: {}, query: {} };
  const outcomes: EnvelopeState['outcome'][] = [
    'in_progress',
    { status: 'completed', incomplete: null, error: null },
    { status: 'incomplete', incomplete: { reason: 'max_output_tokens' }, error: null },
    { status: 'failed', incomplete: null, error: { code: 'server_error', message: 'x' } },
  ];
  let checked = 0;
  for (let i = 0; i < 2000; i++) {
    const body = randomBody(r);
    const request = codec.decodeRequest(body, ctx);
    const state: EnvelopeState = {
      id: `resp_${i}`,
      createdAt: 1_700_000_000 + i,
      outcome: pick(outcomes),
      output: [],
      usage: r() < 0.5 ? null : { inputTokens: i, outputTokens: 3, cacheReadTokens: r() < 0.5 ? 2 : undefined },
    };
    const after = JSON.stringify(responseEnvelope(request, state));
    const before = JSON.stringify(envelopeBefore(request, state));
    if (after !== before) t.fail(`body ${JSON.stringify(body)}: ${after} !== ${before}`);
    else checked++;
  }
  t.equal(checked, 2000);
  // The generator reached the fields that have a branch of their own.
  const one = JSON.stringify(
    responseEnvelope(codec.decodeRequest({ model: 'm', input: 'x', service_tier: 'auto' }, ctx), {
      id: 'resp_1',
      createdAt: 1,
      outcome: 'in_progress',
      output: [],
      usage: null,
    }),
  );
  t.match(one, /"reasoning":\{"effort":null,"summary":null\},"service_tier":"default","store":true/);
});

t.test('an id is its prefix and 48 random hex digits, none repeated across pool refills', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    // The server's ids (src/infra/formats/formats.ts) share their pool with the request ids.
    const id = `resp_${randomHex(24)}`;
    newRequestId();
    if (!/^resp_[0-9a-f]{48}$/.test(id)) t.fail(id);
    seen.add(id);
  }
  t.equal(seen.size, 1000);
  t.match(randomIds.newId('msg'), /^msg_[0-9a-f]{48}$/, "the adapter's own default");
});

t.test("a first turn's leading instructions read from the raw input as from its normalized items", async (t) => {
  // Before session 12: read from normalizeInputItems' output, made for every request.
  const before = (input: unknown): { type: 'text'; text: string }[] => {
    const parts: { type: 'text'; text: string }[] = [];
    for (const item of normalizeInputItems(input)) {
      if (item.type !== 'message' || (item.role !== 'developer' && item.role !== 'system')) break;
      const content = Array.isArray(item.content) ? item.content : [];
      for (const c of content) {
        const text = (c as { text?: unknown } | null)?.text;
        if (typeof text === 'string' && text !== '') parts.push({ type: 'text', text });
      }
    }
    return parts;
  };
  const r = rng(12);
  const pick = pickFrom(r);
  const item = (): unknown =>
    pick([
      null,
      'text',
      7,
      [],
      { role: 'developer', content: 'Be brief.' },
      { role: 'system', content: '' },
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Sys.' }, null, { text: 3 }] },
      { type: null, role: 'developer', content: 'typed null' },
      { type: 'message', role: 'developer', content: 'D.' },
      { role: 'user', content: 'Hi.' },
      { type: 'message', role: 'assistant', content: 'A.' },
      { type: 'function_call_output', call_id: 'c', output: 'x' },
      { role: 'developer' },
      { type: 'reasoning', role: 'system', content: 'not a message' },
      { content: 'no role' },
    ]);
  let checked = 0;
  for (let i = 0; i < 3000; i++) {
    const input =
      r() < 0.05 ? pick(['plain string', undefined, {}]) : Array.from({ length: Math.floor(r() * 6) }, item);
    if (t.same(leadingInstructions(input), before(input), JSON.stringify(input))) checked++;
  }
  t.equal(checked, 3000);
});

t.test('a route is sent the client options without the state keys, in their order, as before', async (t) => {
  const stateKeys = ['previous_response_id', 'item_references', 'item_reference_slots', 'store', 'truncation'];
  const route: Route = { provider: 'anthropic', model: 'claude', weight: 1, breakerModel: 'claude' } as Route;
  const r = rng(5);
  const keys = [...stateKeys, 'instructions', 'include', 'stream_options', 'prompt_cache_key', 'zz_unknown'];
  for (let i = 0; i < 500; i++) {
    const options: Record<string, unknown> = {};
    for (const k of keys) if (r() < 0.5) options[k] = i;
    const session = new ResponsesSession(
      openaiResponses.conversation!,
      new ResponseRepository(new MemoryStore()),
      'w',
      () => undefined,
    );
    const request = chatRequest({ extensions: { 'openai-responses': options, gemini: { x: 1 } } });
    const sent = JSON.stringify(options);
    const out = session.forRoute(request, route, () => t.fail('no warning'));
    const expected = { ...options };
    for (const k of stateKeys) delete expected[k];
    t.equal(JSON.stringify(out.extensions), JSON.stringify({ 'openai-responses': expected, gemini: { x: 1 } }));
    t.same(out.messages, request.messages);
    t.equal(JSON.stringify(options), sent, "the request's own options are left as they were");
  }
});
