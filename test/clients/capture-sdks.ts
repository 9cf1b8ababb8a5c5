// Stores what the AI SDK's providers send (`node test/clients/capture-sdks.ts`): each provider runs
// the three calls of ai-sdk-scenarios.ts straight against the emulator of its own format (no
// polygate in between), through the capture proxy, and every request becomes a fixture under
// test/clients/fixtures/ai-sdk-<provider>/ for test/clients/replay.test.ts.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import { repoRoot } from '../helpers/start-gateway.ts';
import { plainText, sdkFormat, sdkModel, sdkProviders, sdkResponder, streamedToolRoundTrip, structuredOutput } from './ai-sdk-scenarios.ts';
import { startCaptureProxy } from './capture-proxy.ts';
import { fixturesDir, toFixture } from './fixtures.ts';

const version = (pkg: string): string => (JSON.parse(readFileSync(join(repoRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
const pkgOf = { anthropic: '@ai-sdk/anthropic', 'openai-chat': '@ai-sdk/openai', 'openai-responses': '@ai-sdk/openai', google: '@ai-sdk/google' } as const;

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
  const meta = { client: `ai-sdk-${provider}`, version: `ai ${version('ai')}, ${pkgOf[provider]} ${version(pkgOf[provider])}`, route: 'direct', model: 'capture-model' };
  for (const [i, c] of proxy.captured.entries()) writeFileSync(join(dir, `${i + 1}.json`), `${JSON.stringify(toFixture(c, meta), null, 2)}\n`);
  console.log(`${provider}: ${proxy.captured.length} requests captured`);
  await proxy.close();
}
await Promise.all(Object.values(emulators).map((e) => e.close()));
