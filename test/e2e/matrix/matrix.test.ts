// The translation matrix (issue #3): every inbound family, through its official SDK, against
// every upstream type, through one running polygate whose upstreams are the emulators (and the
// built-in echo). Each cell checks what the client saw and what the upstream received, in the
// upstream's own wire format.
import t from 'tap';
import { TEST_KEY } from '../../helpers/start-gateway.ts';
import type { Reply } from '../../emulators/emulator-types.ts';
import { chatDriver } from './drivers/chat-driver.ts';
import type { Driver, Family } from './drivers/driver.ts';
import { geminiDriver, geminiSchemaOf, viaGeminiSchema } from './drivers/gemini-driver.ts';
import { messagesDriver } from './drivers/messages-driver.ts';
import { responsesDriver } from './drivers/responses-driver.ts';
import {
  forecastJson,
  forecastSchema,
  pixel,
  reasoningBudget,
  reasoningEffort,
  schemaErrors,
  signatures,
  SYSTEM,
  thinkingText,
  toolArgPieces,
  toolArgs,
  toolResultText,
  weatherTool,
  type JsonSchema,
} from './fixtures.ts';
import {
  models,
  providerNames,
  recordResponseHeaders,
  startHarness,
  upstreamKeys,
  upstreamNames,
  type UpstreamName,
} from './harness.ts';
import { inspectors, type Inspector, type Received } from './inspectors/index.ts';

const h = await startHarness();
t.teardown(() => h.close());
const headers = recordResponseHeaders(h.gw.url);

const gemini = geminiDriver(h.gw.url, TEST_KEY);
const drivers: Driver[] = [
  messagesDriver(h.gw.url, TEST_KEY),
  chatDriver(h.gw.url, TEST_KEY),
  responsesDriver(h.gw.url, TEST_KEY),
  gemini,
];

/** Cells where the client's format is the upstream's: the body is relayed, not translated. */
const passThrough: Record<Family, UpstreamName> = {
  messages: 'anthropic',
  chat: 'openai-chat',
  responses: 'openai-responses',
  gemini: 'gemini',
};

/** Upstreams whose arguments arrive as streamed strings (Gemini sends whole objects). */
const streamsArgumentText = (u: UpstreamName): boolean =>
  u === 'openai-chat' || u === 'openai-responses' || u === 'anthropic';

/** Scripted tool-call ids; Gemini usually sends none, so its calls get polygate's synthetic ids. */
const callIds: Partial<Record<UpstreamName, string>> = {
  anthropic: 'toolu_01Matrix',
  'openai-chat': 'call_matrixChat01',
  'openai-responses': 'call_matrixResp01',
};

/** Each upstream's own word for a content-filtered answer and for a cut at the token limit. */
const upstreamWords: Record<Exclude<UpstreamName, 'echo'>, { filter: string; length: string }> = {
  anthropic: { filter: 'refusal', length: 'max_tokens' },
  'openai-chat': { filter: 'content_filter', length: 'length' },
  'openai-responses': { filter: 'content_filter', length: 'max_output_tokens' },
  gemini: { filter: 'SAFETY', length: 'MAX_TOKENS' },
};
/** …and the word each client family must see for them (the finish-reason tables of the adapters). */
const clientWords: Record<Family, { filter: string; length: string; blocked: string }> = {
  messages: { filter: 'refusal', length: 'max_tokens', blocked: 'refusal' },
  chat: { filter: 'content_filter', length: 'length', blocked: 'content_filter' },
  responses: {
    filter: 'incomplete:content_filter',
    length: 'incomplete:max_output_tokens',
    blocked: 'incomplete:content_filter',
  },
  gemini: { filter: 'SAFETY', length: 'MAX_TOKENS', blocked: 'blocked:SAFETY' },
};

/** Where a continued conversation brings the upstream's own reasoning token back to it. */
const carriesReasoningToken = (f: Family, u: 'anthropic' | 'openai-responses' | 'gemini'): boolean =>
  f === 'responses' || f === 'gemini' || (f === 'messages' && u === 'anthropic');

const last = (xs: Received[]): Received => {
  const r = xs[xs.length - 1];
  if (!r) throw new Error('the upstream received no request');
  return r;
};

for (const d of drivers) {
  t.test(`client ${d.family}`, async (t) => {
    for (const u of upstreamNames) {
      t.test(`upstream ${u}${passThrough[d.family] === u ? ' (pass-through)' : ''}`, async (t) => {
        const emu = u === 'echo' ? undefined : h.emulators[u];
        const insp: Inspector | undefined = u === 'echo' ? undefined : inspectors[u];
        const model = models[u].client;
        const script = (...r: Reply[]): void => emu?.script(...r);
        const received = (): Received => last(emu?.requests ?? []);
        t.beforeEach(() => emu?.reset());

        t.test('text', async (t) => {
          const prompt = 'say hello back';
          script({ kind: 'text', text: prompt });
          const out = await d.text(model, SYSTEM, prompt);
          t.equal(out.text, prompt);
          t.equal(out.finish, d.stopWords.stop);
          // A pass-through relays the upstream's answer as is; a translation reports the client's model name.
          t.equal(
            out.model,
            passThrough[d.family] === u ? models[u].upstream : model,
            passThrough[d.family] === u ? 'relayed: the upstream’s model' : 'translated: the client’s model',
          );
          t.ok(
            out.usage.input > 0 && out.usage.output > 0,
            `usage in the family’s fields (${JSON.stringify(out.usage)})`,
          );
          t.equal(headers.last()?.get('x-polygate-warnings') ?? null, null, 'nothing the client sent was dropped');
          t.equal(
            headers.last()?.get('x-polygate-route'),
            `${providerNames[u]}/${models[u].upstream}`,
            'served by the upstream’s route',
          );
          if (!emu || !insp) return;
          const r = received();
          t.equal(emu.requests.length, 1, 'one upstream request');
          t.equal(insp.model(r), models[u].upstream, 'the route’s upstream model');
          t.equal(insp.key(r), upstreamKeys[u as Exclude<UpstreamName, 'echo'>], 'the upstream key');
          t.notOk(
            JSON.stringify(r.headers).includes(TEST_KEY) || r.path.includes(TEST_KEY),
            'the client key never reaches the upstream',
          );
          t.equal(insp.system(r), SYSTEM, 'system prompt where the upstream format puts it');
        });

        t.test('streaming text', async (t) => {
          const text = 'one two three four';
          script({ kind: 'text', text, chunks: ['one ', 'two ', 'three ', 'four'] });
          const out = await d.stream(model, u === 'echo' ? text : 'count');
          t.equal(out.text, text);
          t.equal(out.deltas.join(''), text, 'the deltas add up to the text');
          t.ok(out.deltas.length >= 2, `arrived in ${out.deltas.length} deltas`);
          t.equal(out.finish, d.stopWords.stop);
        });

        t.test('tool call (streamed), then the tool result turn', async (t) => {
          script({
            kind: 'tool',
            name: weatherTool.name,
            args: toolArgs,
            argChunks: toolArgPieces,
            ...(callIds[u] ? { id: callIds[u] } : {}),
          });
          const call = await d.toolCall(model, 'weather in Paris?', weatherTool);
          t.equal(call.call.name, weatherTool.name);
          t.equal(call.finish, d.stopWords.tool);
          if (u === 'echo') {
            t.notOk(
              schemaErrors(weatherTool.schema, call.pieces.join('')),
              'echo calls the forced tool with schema-valid arguments',
            );
          } else if (d.streamsArgumentText && streamsArgumentText(u)) {
            t.equal(call.pieces.join(''), toolArgs, 'the streamed pieces rebuild the upstream’s arguments exactly');
            t.ok(call.pieces.filter((p) => p !== '').length >= 2, 'the arguments arrived in pieces');
          } else {
            t.same(JSON.parse(call.pieces.join('')), JSON.parse(toolArgs), 'whole-object arguments equal as JSON');
          }
          if (u !== 'echo') t.same(call.call.args, JSON.parse(toolArgs));
          if (callIds[u]) t.equal(call.call.id, callIds[u], 'the upstream’s call id reaches the client');
          if (emu && insp) {
            const r = received();
            t.same(
              insp.tools(r),
              [{ name: weatherTool.name, schema: weatherTool.schema }],
              'the tool in the upstream’s form',
            );
            t.equal(insp.forcedTool(r), weatherTool.name, 'the forced tool choice in the upstream’s form');
          }

          emu?.reset();
          script({ kind: 'text', text: 'It is sunny.' });
          const second = await d.toolResultTurn(model, call, weatherTool, toolResultText);
          if (u === 'echo') t.match(second.text, toolResultText, 'echo answers with the tool result');
          else t.equal(second.text, 'It is sunny.');
          if (!emu || !insp) return;
          const r = received();
          const hc = insp.historyCall(r);
          t.equal(hc?.name, weatherTool.name, 'the call is replayed');
          t.same(hc?.args, JSON.parse(toolArgs), 'with its arguments');
          const tr = insp.toolResult(r);
          t.ok(tr, 'a tool result in the upstream’s own form');
          t.match(tr?.text, toolResultText, 'carrying the result');
          if (u === 'gemini') {
            t.equal(tr?.name, weatherTool.name, 'Gemini names the function it answers');
            // The emulator's call had no signature; Gemini 3 would refuse a replayed call without one.
            if (d.family !== 'gemini')
              t.same(
                insp.replayedTokens(r),
                ['skip_thought_signature_validator'],
                'the replayed call carries Gemini’s documented placeholder signature',
              );
            t.equal(hc?.id, tr?.callId, 'call and response agree on the id (none for Gemini’s own id-less calls)');
          } else {
            t.equal(hc?.id, call.call.id, 'the call id is kept');
            t.equal(tr?.callId, call.call.id, 'the result answers that id');
          }
        });

        t.test('image input', async (t) => {
          script({ kind: 'text', text: 'a pixel' });
          const out = await d.image(model, pixel, 'what is this?');
          t.equal(out.text, u === 'echo' ? 'what is this?' : 'a pixel');
          if (insp)
            t.same(
              insp.image(received()),
              { mediaType: 'image/png', data: pixel },
              'the image, inline, in the upstream’s form',
            );
        });

        const schemaCases: Array<{ name: string; driver: Driver; sent: JsonSchema }> =
          d.family === 'gemini'
            ? [
                { name: 'responseSchema', driver: d, sent: viaGeminiSchema(forecastSchema) },
                {
                  name: 'responseJsonSchema',
                  driver: geminiDriver(h.gw.url, TEST_KEY, { schemaField: 'responseJsonSchema' }),
                  sent: forecastSchema,
                },
              ]
            : [{ name: 'native form', driver: d, sent: forecastSchema }];
        for (const c of schemaCases) {
          t.test(`JSON-schema output (${c.name})`, async (t) => {
            script({ kind: 'text', text: forecastJson });
            const out = await c.driver.jsonSchema(model, forecastSchema, 'forecast for Paris');
            t.notOk(
              schemaErrors(forecastSchema, out.text),
              `the answer is valid against the schema (ajv): ${out.text}`,
            );
            if (!insp) return;
            // A pass-through relays the client's own Schema object; translation sends JSON Schema.
            const expected =
              d.family === 'gemini' && u === 'gemini' && c.name === 'responseSchema'
                ? geminiSchemaOf(forecastSchema)
                : c.sent;
            t.same(
              insp.outputSchema(received()),
              expected,
              'the schema in the upstream’s native structured-output field',
            );
          });
        }

        if (d.family === 'gemini') {
          t.test('text/x.enum output', async (t) => {
            // Upstreams other than Gemini answer a string-enum schema with a JSON string.
            script({ kind: 'text', text: u === 'gemini' ? 'rain' : '"rain"' });
            const out = await gemini.enumOutput(model, ['sun', 'rain'], 'weather?');
            t.equal(out, u === 'echo' ? 'sun' : 'rain', 'the bare enum value, as Gemini answers it');
            if (insp && u !== 'gemini')
              t.same(
                insp.outputSchema(received()),
                { type: 'string', enum: ['sun', 'rain'] },
                'a string-enum JSON schema upstream',
              );
          });
        }

        t.test('reasoning', async (t) => {
          const token = u === 'echo' || u === 'openai-chat' ? 'unused' : signatures[u];
          script({ kind: 'thinking', thinking: thinkingText, signature: token, text: 'Done thinking.' });
          const out = await d.reasoning(model, 'Done thinking.');
          t.equal(out.text, 'Done thinking.');
          if (d.family !== 'chat') {
            if (u === 'echo') t.ok(out.thinking, 'echo shows a reasoning part');
            else t.equal(out.thinking, thinkingText, 'the reasoning text reaches the client');
          }
          if (d.family === 'messages') {
            // Only Anthropic's own signatures are presented as Anthropic signatures.
            t.equal(
              out.token,
              u === 'anthropic' ? signatures.anthropic : undefined,
              'signature shown only when it is Anthropic’s',
            );
          }
          if (insp) {
            const cfg = insp.reasoning(received());
            if (u === 'anthropic' || u === 'gemini')
              t.same(cfg, { budget: reasoningBudget }, 'budget per reasoning-map.ts');
            else t.same(cfg, { effort: reasoningEffort }, 'effort per reasoning-map.ts');
          }

          emu?.reset();
          script({ kind: 'text', text: 'Continued.' });
          const next = await d.reasoningContinue(model, out, 'And then?');
          t.equal(next.text, u === 'echo' ? 'And then?' : 'Continued.');
          if (insp && u !== 'echo' && u !== 'openai-chat' && carriesReasoningToken(d.family, u)) {
            t.ok(out.token, 'the client holds an opaque reasoning token');
            t.same(
              insp.replayedTokens(received()),
              [signatures[u]],
              'the upstream gets its own reasoning token back, byte-exact',
            );
          } else if (insp) {
            t.same(insp.replayedTokens(received()), [], 'no foreign reasoning token reaches the upstream');
          }
        });

        if (u === 'echo') return;
        const e = emu!;
        const words = upstreamWords[u];

        t.test('finish reasons: a content filter and the token limit', async (t) => {
          e.script({ kind: 'stop', word: words.filter, text: 'partial' });
          const filtered = await d.text(model, SYSTEM, 'x');
          t.equal(
            filtered.finish,
            clientWords[d.family].filter,
            `${u} '${words.filter}' → ${clientWords[d.family].filter}`,
          );
          e.script({ kind: 'stop', word: words.length, text: 'partial' });
          const cut = await d.text(model, SYSTEM, 'x');
          t.equal(cut.finish, clientWords[d.family].length, `${u} '${words.length}' → ${clientWords[d.family].length}`);
          e.script({ kind: 'stop', word: words.filter, text: 'partial words' });
          const streamed = await d.stream(model, 'x');
          t.equal(streamed.finish, clientWords[d.family].filter, 'the same when streamed');
        });

        if (u === 'gemini') {
          t.test('Gemini safety stops never become a plain stop', async (t) => {
            e.script({ kind: 'stop', word: 'RECITATION', text: 'partial' });
            const recitation = await d.text(model, SYSTEM, 'x');
            t.equal(
              recitation.finish,
              d.family === 'gemini' ? 'RECITATION' : clientWords[d.family].filter,
              'RECITATION',
            );
            e.script({ kind: 'stop', word: 'SAFETY', text: '', blocked: true });
            const blocked = await d.text(model, SYSTEM, 'x');
            t.equal(blocked.finish, clientWords[d.family].blocked, 'promptFeedback.blockReason');
            e.script({ kind: 'stop', word: 'SAFETY', text: '', blocked: true });
            const blockedStream = await d.stream(model, 'x');
            t.equal(
              blockedStream.finish,
              d.family === 'gemini' ? '' : clientWords[d.family].blocked,
              'promptFeedback.blockReason, streamed',
            );
            e.script({ kind: 'stop', word: 'MALFORMED_FUNCTION_CALL', text: '' });
            const malformed = await d.text(model, SYSTEM, 'x').then(
              (r) => r.finish,
              (err: unknown) => `error ${(err as { status?: number }).status}`,
            );
            const expected: Record<Family, string> = {
              messages: 'error 502',
              chat: 'error 502',
              responses: 'failed',
              gemini: 'MALFORMED_FUNCTION_CALL',
            };
            t.equal(malformed, expected[d.family], 'MALFORMED_FUNCTION_CALL is a failure, not a stop');
          });
        }

        t.test('an upstream failing after the first byte fails the client’s stream', async (t) => {
          e.script({ kind: 'cut', text: 'partial' });
          const err = await d.stream(model, 'x').then(
            () => undefined,
            (x: unknown) => x,
          );
          t.type(err, Error, 'the SDK reports an error, not a clean end');
        });

        t.test('upstream 429 and 500 in the family’s status and shape', async (t) => {
          e.script({ kind: 'error', status: 429, message: 'slow down', retryAfter: 7 });
          const r429 = await d.error(model);
          t.equal(r429.status, 429);
          t.ok(
            d.errorWords[429].includes(d.errorWord(r429.body) ?? ''),
            `429 → ${d.errorWord(r429.body)} (${JSON.stringify(r429.body)})`,
          );
          if (r429.headers) t.equal(r429.headers.get('retry-after'), '7', 'retry-after relayed');
          e.script({ kind: 'error', status: 500, message: 'boom' });
          const r500 = await d.error(model);
          t.equal(r500.status, 500);
          t.ok(
            d.errorWords[500].includes(d.errorWord(r500.body) ?? ''),
            `500 → ${d.errorWord(r500.body)} (${JSON.stringify(r500.body)})`,
          );
        });
      });
    }
  });
}
