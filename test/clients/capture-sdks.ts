// Stores what the AI SDK's providers send (`node test/clients/capture-sdks.ts`): each provider runs
// the three calls of ai-sdk-scenarios.ts straight against the emulator of its own format (no
// polygate in between), through the capture proxy, and every request becomes a fixture under
// test/clients/fixtures/ai-sdk-<provider>/ for test/clients/replay.test.ts. Also the official
// SDKs' discovery calls (test/clients/fixtures/sdk-<name>/).
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import { repoRoot } from '../helpers/start-gateway.ts';
import {
  plainText,
  sdkFormat,
  sdkModel,
  sdkProviders,
  sdkResponder,
  streamedToolRoundTrip,
  structuredOutput,
} from './ai-sdk-scenarios.ts';
import { startCaptureProxy } from './capture-proxy.ts';
import { fixturesDir, toFixture } from './fixtures.ts';

const version = (pkg: string): string =>
  (JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;
const pkgOf = {
  anthropic: '@ai-sdk/anthropic',
  'openai-chat': '@ai-sdk/openai',
  'openai-responses': '@ai-sdk/openai',
  google: '@ai-sdk/google',
} as const;

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const emulators: Record<string, Emulator> = {
  anthropic: await startAnthropicUpstream(),
  'openai-chat': await startOpenAIChatUpstream(),
  'openai-responses': await startOpenAIResponsesUpstream(),
  gemini: await startGeminiUpstream(),
};
for (const provider of sdkProviders) {
  const emu = emulators[sdkFormat[provider]]!;
  emu.reset();
  const marker = `PGMARK${randomBytes(5).toString('hex').toUpperCase()}`;
  emu.respond(sdkResponder(marker));
  const proxy = await startCaptureProxy(emu.url);
  const model = sdkModel(provider, proxy.url, 'sk-capture', 'capture-model');
  await plainText(model);
  await streamedToolRoundTrip(model, marker);
  await structuredOutput(model);
  const dir = join(fixturesDir, `ai-sdk-${provider}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const meta = {
    client: `ai-sdk-${provider}`,
    version: `ai ${version('ai')}, ${pkgOf[provider]} ${version(pkgOf[provider])}`,
    route: 'direct',
    model: 'capture-model',
  };
  for (const [i, c] of proxy.captured.entries())
    writeFileSync(join(dir, `${i + 1}.json`), `${JSON.stringify(toFixture(c, meta), null, 2)}\n`);
  console.log(`${provider}: ${proxy.captured.length} requests captured`);
  await proxy.close();
}

// The official SDKs' discovery calls (model lists, token counts): what clients ask before they
// chat. The emulators answer only generation, so these fail here; the requests are what counts.
const discovery: Record<
  string,
  { format: string; version: string; calls: (root: string) => Array<() => Promise<unknown>> }
> = {
  'sdk-openai': {
    format: 'openai-responses',
    version: `openai ${version('openai')}`,
    calls: (root) => {
      const c = new OpenAI({ apiKey: 'sk-capture', baseURL: `${root}/v1`, maxRetries: 0 });
      return [
        () => c.models.list(),
        () => c.responses.inputTokens.count({ model: 'capture-model', input: 'count these words' }),
      ];
    },
  },
  'sdk-anthropic': {
    format: 'anthropic',
    version: `@anthropic-ai/sdk ${version('@anthropic-ai/sdk')}`,
    calls: (root) => {
      const c = new Anthropic({ apiKey: 'sk-capture', baseURL: root, maxRetries: 0 });
      return [
        () => c.models.list(),
        () =>
          c.messages.countTokens({
            model: 'capture-model',
            messages: [{ role: 'user', content: 'count these words' }],
          }),
      ];
    },
  },
  'sdk-genai': {
    format: 'gemini',
    version: `@google/genai ${version('@google/genai')}`,
    calls: (root) => {
      const c = new GoogleGenAI({ apiKey: 'sk-capture', httpOptions: { baseUrl: root } });
      return [
        () => c.models.list(),
        () => c.models.get({ model: 'capture-model' }),
        () => c.models.countTokens({ model: 'capture-model', contents: 'count these words' }),
      ];
    },
  },
};
for (const [client, d] of Object.entries(discovery)) {
  const proxy = await startCaptureProxy(emulators[d.format]!.url);
  // One after the other, so the fixtures' order is the calls' order.
  for (const call of d.calls(proxy.url)) await call().catch(() => undefined);
  const dir = join(fixturesDir, client);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [i, c] of proxy.captured.entries())
    writeFileSync(
      join(dir, `${i + 1}.json`),
      `${JSON.stringify(toFixture(c, { client, version: d.version, route: 'direct', model: 'capture-model' }), null, 2)}\n`,
    );
  console.log(`${client}: ${proxy.captured.length} requests captured`);
  await proxy.close();
}
await Promise.all(Object.values(emulators).map((e) => e.close()));
