// Stores what LangChain JS and the OpenAI Agents SDK send, as fixtures for
// test/clients/replay.test.ts: `node test/clients/capture-frameworks.ts`. Neither is a dependency
// of polygate: pinned versions are installed into a temporary folder (never the project), and
// each chat model class talks straight to the emulator of its own format through the capture
// proxy (a text turn, a tool call, the tool result streamed back).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startGeminiUpstream } from '../emulators/gemini-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startOpenAIResponsesUpstream } from '../emulators/openai-responses-upstream.ts';
import { node24 } from '../helpers/start-gateway.ts';
import { sdkResponder } from './ai-sdk-scenarios.ts';
import { startCaptureProxy } from './capture-proxy.ts';
import { fixturesDir, toFixture } from './fixtures.ts';

const pinned = {
  '@langchain/core': '1.4.0',
  '@langchain/openai': '1.6.0',
  '@langchain/anthropic': '1.5.11',
  '@langchain/google-genai': '2.3.2',
  '@openai/agents': '0.20.0',
};
const dir = process.argv.find((a) => a.startsWith('--sdk-dir='))?.slice(10) ?? join(tmpdir(), 'polygate-frameworks');
if (!Object.keys(pinned).every((p) => existsSync(join(dir, 'node_modules', p, 'package.json')))) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"polygate-frameworks","private":true}\n');
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', dir, '--no-audit', '--no-fund', ...Object.entries(pinned).map(([p, v]) => `${p}@${v}`)],
    { stdio: 'inherit', env: { ...process.env, PATH: `${dirname(node24)}:${process.env.PATH}` } },
  );
  if (npm.status !== 0) throw new Error(`npm install failed (${npm.status})`);
}
// Loaded from the temporary folder, so typed loosely: only the calls below are made.
type Ctor = new (o: Record<string, unknown>) => Record<string, (...a: unknown[]) => unknown>;
const load = createRequire(join(dir, 'package.json')) as (id: string) => Record<string, unknown>;
const { ChatOpenAI } = load('@langchain/openai') as { ChatOpenAI: Ctor };
const { ChatAnthropic } = load('@langchain/anthropic') as { ChatAnthropic: Ctor };
const { ChatGoogleGenerativeAI } = load('@langchain/google-genai') as { ChatGoogleGenerativeAI: Ctor };
const { HumanMessage, ToolMessage } = load('@langchain/core/messages') as { HumanMessage: Ctor; ToolMessage: Ctor };
const agents = load('@openai/agents') as Record<string, unknown>;

const emulators: Record<string, Emulator> = {
  anthropic: await startAnthropicUpstream(),
  'openai-chat': await startOpenAIChatUpstream(),
  'openai-responses': await startOpenAIResponsesUpstream(),
  gemini: await startGeminiUpstream(),
};
const key = 'sk-capture';
const model = 'capture-model';
const lookupTool = {
  type: 'function',
  function: {
    name: 'lookup',
    description: 'Looks up the code word for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

type Chat = Record<string, (...a: unknown[]) => unknown>;
const langchain: Record<string, { format: string; make: (root: string) => Chat }> = {
  'langchain-openai-chat': {
    format: 'openai-chat',
    make: (root) => new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${root}/v1` }, maxRetries: 0 }),
  },
  'langchain-openai-responses': {
    format: 'openai-responses',
    make: (root) =>
      new ChatOpenAI({
        model,
        apiKey: key,
        configuration: { baseURL: `${root}/v1` },
        useResponsesApi: true,
        maxRetries: 0,
      }),
  },
  'langchain-anthropic': {
    format: 'anthropic',
    make: (root) => new ChatAnthropic({ model, apiKey: key, anthropicApiUrl: root, maxRetries: 0 }),
  },
  'langchain-google-genai': {
    format: 'gemini',
    make: (root) => new ChatGoogleGenerativeAI({ model, apiKey: key, baseUrl: root, maxRetries: 0 }),
  },
};

async function langchainTurns(llm: Chat): Promise<void> {
  await llm.invoke!('say hello back');
  const withTools = llm.bindTools!([lookupTool]) as Chat;
  const human = new HumanMessage({ content: 'What is the code word for Oslo? Use the lookup tool.' });
  const ai = (await withTools.invoke!([human])) as { tool_calls?: Array<{ id: string }> };
  const call = ai.tool_calls?.[0];
  if (!call) throw new Error('no tool call came back');
  const result = new ToolMessage({ content: JSON.stringify({ codeWord: currentMarker }), tool_call_id: call.id });
  for await (const _ of (await withTools.stream!([human, ai, result])) as AsyncIterable<unknown>) void _;
}

async function agentsTurns(root: string, useResponses: boolean): Promise<void> {
  const { Agent, Runner, OpenAIProvider, tool, setTracingDisabled } = agents as {
    Agent: Ctor;
    Runner: Ctor;
    OpenAIProvider: Ctor;
    tool: (o: unknown) => unknown;
    setTracingDisabled: (b: boolean) => void;
  };
  setTracingDisabled(true);
  const lookup = tool({
    name: 'lookup',
    description: 'Looks up the code word for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
    execute: async () => ({ codeWord: currentMarker }),
  });
  const agent = new Agent({ name: 'capture', instructions: 'Answer briefly.', tools: [lookup], model });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ apiKey: key, baseURL: `${root}/v1`, useResponses }),
    tracingDisabled: true,
  });
  await runner.run!(agent, 'say hello back');
  const streamed = (await runner.run!(agent, 'What is the code word for Oslo? Use the lookup tool.', {
    stream: true,
  })) as { toTextStream(): AsyncIterable<unknown>; completed: Promise<void> };
  for await (const _ of streamed.toTextStream()) void _;
  await streamed.completed;
}

let currentMarker = '';
const runs: Array<{ client: string; version: string; format: string; run: (root: string) => Promise<void> }> = [
  ...Object.entries(langchain).map(([client, l]) => ({
    client,
    version: `@langchain/core ${pinned['@langchain/core']}`,
    format: l.format,
    run: (root: string) => langchainTurns(l.make(root)),
  })),
  {
    client: 'openai-agents-responses',
    version: `@openai/agents ${pinned['@openai/agents']}`,
    format: 'openai-responses',
    run: (root: string) => agentsTurns(root, true),
  },
  {
    client: 'openai-agents-chat',
    version: `@openai/agents ${pinned['@openai/agents']}`,
    format: 'openai-chat',
    run: (root: string) => agentsTurns(root, false),
  },
];
let failed = 0;
for (const r of runs) {
  const emu = emulators[r.format]!;
  emu.reset();
  currentMarker = `PGMARK${randomBytes(5).toString('hex').toUpperCase()}`;
  emu.respond(sdkResponder(currentMarker));
  const proxy = await startCaptureProxy(emu.url);
  try {
    await r.run(proxy.url);
    const out = join(fixturesDir, r.client);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const [i, c] of proxy.captured.entries())
      writeFileSync(
        join(out, `${i + 1}.json`),
        `${JSON.stringify(toFixture(c, { client: r.client, version: r.version, route: 'direct', model }), null, 2)}\n`,
      );
    console.log(`${r.client}: ${proxy.captured.length} requests captured`);
  } catch (e) {
    failed++;
    console.log(`${r.client}: FAILED against its own format's emulator: ${e instanceof Error ? e.message : String(e)}`);
  }
  await proxy.close();
}
await Promise.all(Object.values(emulators).map((e) => e.close()));
process.exit(failed === 0 ? 0 : 1);
