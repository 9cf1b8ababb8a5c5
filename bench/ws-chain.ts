// A 20-turn tool chain over the Responses WebSocket against the same chain over HTTP
// (POST /v1/responses, stream, previous_response_id), both through polygate to an emulated
// OpenAI Chat Completions upstream (a translated route): end-to-end time per turn and polygate's
// CPU per turn (/proc of the gateway process). Usage: node bench/ws-chain.ts [chains=5] [turns=20]
import OpenAI from 'openai';
import { startOpenAIChatUpstream } from '../test/emulators/openai-chat-upstream.ts';
import { closeWs, connectWs, finalResponse, wsTurn } from '../test/responses-ws/ws-client.ts';
import type { Gateway } from '../test/helpers/start-gateway.ts';
import { cpuSecondsOf, pinning, startPolygate } from './processes.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const chains = Number(process.argv[2] ?? 5);
const turns = Number(process.argv[3] ?? 20);
const KEY = 'sk-bench-0001';
const tool = {
  type: 'function' as const,
  name: 'run',
  description: 'Runs a step',
  parameters: {
    type: 'object',
    properties: { step: { type: 'integer' } },
    required: ['step'],
    additionalProperties: false,
  },
  strict: true,
};

const upstream = await startOpenAIChatUpstream();
// Every turn but the last calls the tool again: a tool loop as a coding agent runs it.
let served = 0;
upstream.respond(() =>
  ++served % turns === 0
    ? { kind: 'text', text: 'all steps done' }
    : { kind: 'tool', name: 'run', args: `{"step":${served % turns}}` },
);
const gw = await startPolygate({
  listen: { host: '127.0.0.1', port: 0 },
  // The shipped default driver: HTTP chains read and write it, the socket's store:false chain does not.
  // WS_BENCH_STORAGE=memory: the HTTP chain without disk, to see what the transport alone saves.
  storage:
    process.env.WS_BENCH_STORAGE === 'memory'
      ? { driver: 'memory' }
      : { driver: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'polygate-ws-bench-')), 'db.sqlite') },
  log: { level: 'warn' },
  keys: [{ id: 'bench', secret: KEY, workspace: 'bench', models: ['*'] }],
  providers: { up: { type: 'openai', api: 'chat_completions', api_key: 'sk-up', base_url: upstream.url } },
  models: { m: { routes: [{ provider: 'up', model: 'gpt-up' }] } },
});

type Turn = (previous: OpenAI.Responses.Response | undefined, i: number) => Promise<OpenAI.Responses.Response>;
const inputOf = (previous: OpenAI.Responses.Response | undefined): OpenAI.Responses.ResponseInput | string => {
  const call = previous?.output.find((o) => o.type === 'function_call');
  return call?.type === 'function_call'
    ? [{ type: 'function_call_output', call_id: call.call_id, output: 'ok' }]
    : 'Run the steps.';
};

async function measure(
  name: string,
  open: () => Promise<{ turn: Turn; close: () => Promise<void> }>,
): Promise<{ name: string; msPerTurn: number; cpuMsPerTurn: number }> {
  served = 0;
  const { turn, close } = await open();
  const cpu0 = cpuSecondsOf(gw.pid);
  const t0 = performance.now();
  for (let c = 0; c < chains; c++) {
    let previous: OpenAI.Responses.Response | undefined;
    for (let i = 0; i < turns; i++) previous = await turn(previous, i);
    if (previous?.status !== 'completed' || previous.output.some((o) => o.type === 'function_call'))
      throw new Error(`${name}: the chain did not end in an answer`);
  }
  const ms = performance.now() - t0;
  const cpu = cpuSecondsOf(gw.pid) - cpu0;
  await close();
  return { name, msPerTurn: ms / (chains * turns), cpuMsPerTurn: (cpu * 1000) / (chains * turns) };
}

const client = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1` });
const overHttp = async () => ({
  turn: (async (previous) => {
    const stream = await client.responses.create({
      model: 'm',
      stream: true,
      tools: [tool],
      input: inputOf(previous),
      previous_response_id: previous?.id,
    });
    for await (const e of stream)
      if (e.type === 'response.completed' || e.type === 'response.failed') return e.response;
    throw new Error('HTTP stream ended without a response');
  }) satisfies Turn,
  close: async () => {},
});
const overSocket = async () => {
  const ws = connectWs({ url: gw.url, port: gw.port } as Gateway, KEY);
  return {
    turn: (async (previous) =>
      finalResponse(
        await wsTurn(ws, {
          model: 'm',
          store: false,
          tools: [tool],
          input: inputOf(previous),
          previous_response_id: previous?.id,
        }),
      )) satisfies Turn,
    close: async () => void (await closeWs(ws)),
  };
};

// A warm-up chain each, so both measure a warm process (JIT, pools, the store's pages).
await measure('warm-up', overHttp);
await measure('warm-up', overSocket);
const rows = [
  await measure('HTTP POST + previous_response_id (store)', overHttp),
  await measure('WebSocket + previous_response_id (store:false)', overSocket),
];
await gw.stop();
await upstream.close();

console.log(
  `\n${chains} chains x ${turns} turns per transport; storage: ${process.env.WS_BENCH_STORAGE === 'memory' ? 'memory' : 'sqlite'}; pinning: ${pinning}\n`,
);
console.log('| transport | ms per turn (end to end) | polygate CPU ms per turn |');
console.log('|---|---:|---:|');
for (const r of rows) console.log(`| ${r.name} | ${r.msPerTurn.toFixed(2)} | ${r.cpuMsPerTurn.toFixed(2)} |`);
const [http, ws] = rows;
console.log(
  `\nWebSocket vs HTTP: time ${(((ws.msPerTurn - http.msPerTurn) / http.msPerTurn) * 100).toFixed(0)} %, CPU ${(((ws.cpuMsPerTurn - http.cpuMsPerTurn) / http.cpuMsPerTurn) * 100).toFixed(0)} %`,
);
