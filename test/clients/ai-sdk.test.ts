// The Vercel AI SDK (`ai` 7) through polygate: its anthropic, openai (chat and responses) and
// google providers, each against every upstream type (echo and the four emulators; the one in the
// provider's own format is the relayed route, the others translated), for plain text, a streamed
// tool round trip and structured output with a JSON schema.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { models, startHarness, upstreamNames } from '../e2e/matrix/harness.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import {
  OSLO,
  plainText,
  sdkFormat,
  sdkModel,
  sdkProviders,
  sdkResponder,
  streamedToolRoundTrip,
  structuredOutput,
  TEXT_PROMPT,
} from './ai-sdk-scenarios.ts';

// The SDK warns on every call that it does not know the test's model names; that is expected here.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const h = await startHarness();
t.teardown(() => h.close());

for (const provider of sdkProviders) {
  for (const upstream of upstreamNames) {
    const emu = upstream === 'echo' ? undefined : h.emulators[upstream];
    const relayed = sdkFormat[provider] === upstream;
    const model = sdkModel(provider, h.gw.url, TEST_KEY, models[upstream].client);
    t.test(
      `${provider} → ${upstream}${relayed ? ' (relayed)' : upstream === 'echo' ? '' : ' (translated)'}`,
      async (t) => {
        const marker = `PGMARK${randomBytes(5).toString('hex').toUpperCase()}`;
        t.beforeEach(() => {
          emu?.reset();
          emu?.respond(sdkResponder(marker));
        });

        t.test('generateText', async (t) => {
          const r = await plainText(model);
          t.equal(r.text, TEXT_PROMPT, 'the upstream echoed the prompt back through polygate');
          t.equal(r.finishReason, 'stop');
          if (emu) t.equal(emu.requests.length, 1, 'one upstream call');
        });

        t.test('streamText with a tool round trip', async (t) => {
          const r = await streamedToolRoundTrip(model, marker);
          t.equal(r.calls.length, 1, 'one tool call');
          t.equal(r.calls[0]?.name, 'lookup');
          t.equal(
            typeof (r.calls[0]?.input as { city?: unknown } | undefined)?.city,
            'string',
            'schema-valid arguments',
          );
          t.equal(r.executed, 1, 'the SDK ran the tool');
          t.equal(r.steps, 2, 'a second step carried the result');
          t.ok(r.deltas > 0, 'the answer streamed as text deltas');
          t.match(r.text, marker, 'the answer holds what the tool returned');
          if (emu) {
            t.equal(emu.requests.length, 2, 'two upstream calls');
            t.ok((emu.requests[1]?.raw ?? '').includes(marker), 'the tool result reached the upstream');
          }
        });

        t.test('structured output (Output.object with jsonSchema)', async (t) => {
          const city = await structuredOutput(model);
          if (emu) t.same(city, OSLO, 'the upstream’s object, parsed and validated by the SDK');
          else {
            t.equal(typeof city.name, 'string');
            t.ok(Number.isInteger(city.population), 'population is an integer');
            t.equal(typeof city.coastal, 'boolean');
          }
        });
      },
    );
  }
}
