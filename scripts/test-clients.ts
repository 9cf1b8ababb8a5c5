// The client suite (`npm run test:clients`): installs pinned versions of Claude Code, Codex CLI and
// Gemini CLI into a temporary folder (never into the project), runs each unmodified and
// non-interactively against a real polygate on loopback, once on a translated route and once on a
// relayed (same-format) route, each to an emulated upstream that makes the CLI use one of its
// tools. Passes when every run exits 0, prints the marker only the tool could have read, the
// upstream saw that tool result come back, and polygate refused none of the CLI's model requests
// (a 4xx or 5xx fails the run even when the CLI recovered from it: Claude Code retries a refused
// request without thinking and goes on, issue #29). Claude Code also runs, with thinking and
// effort on (its default), on every translated route (Chat, Responses, Gemini, echo); each
// emulated upstream must have been asked to reason. Each CLI is also asked to search the web on a
// Chat Completions route with `hosted_tools: run` (#27, docs/hosted-tools.md): the emulated model
// calls the search tool it is offered, polygate runs the search on the search-backend emulator,
// and the CLI's answer must hold the marker only a search result carried. Claude Code also runs,
// with a tool round trip, to Claude on the Bedrock (InvokeModel, SigV4 verified) and Vertex
// (rawPredict, a service-account token) emulators, where polygate relays its body in the cloud's
// envelope, and Codex CLI with a tool round trip to Claude on Bedrock Converse and Gemini on Vertex,
// translated (#26, docs/providers.md). Options:
//   --only=claude-code,codex       run some CLIs
//   --search-only                  run only the web search runs
//   --cloud-only                   run only the Bedrock and Vertex runs (Claude Code and Codex)
//   --capture                      also run each CLI straight against its own format's emulator and
//                                  store what it sent as test/clients/fixtures/<cli>/<n>.json
//   --clients-dir=DIR              reuse an install (default: $TMPDIR/polygate-clients-<versions>)
//   --timeout=SECONDS              per CLI run (default 120)
//   --versions=claude-code=X,...   run other versions than the pinned ones (scripts/watch-clients.ts)
//   --fixtures-dir=DIR             with --capture, store the fixtures there instead of test/clients/fixtures
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { models, startHarness, type UpstreamName } from '../test/e2e/matrix/harness.ts';
import type { Emulator } from '../test/emulators/emulator-types.ts';
import { startCaptureProxy, type CaptureProxy } from '../test/clients/capture-proxy.ts';
import { clis, searchPlan, type Cli, type CliName } from '../test/clients/cli-clients.ts';
import { startSearchWeb } from '../test/emulators/search-web.ts';
import { cloudsOf, isCloud, startCloudRoutes, type Cloud } from '../test/clients/cloud-routes.ts';
import { toFixture } from '../test/clients/fixtures.ts';
import { offeredTools, toolResponder } from '../test/clients/tool-responder.ts';
import type { Captured } from '../test/clients/capture-proxy.ts';
import { node24, repoRoot, TEST_KEY } from '../test/helpers/start-gateway.ts';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg('only')?.split(',');
const capture = process.argv.includes('--capture');
const searchOnly = process.argv.includes('--search-only');
const cloudOnly = process.argv.includes('--cloud-only');
const timeoutMs = Number(arg('timeout') ?? 120) * 1000;
const pinnedOver = new Map(
  (arg('versions') ?? '')
    .split(',')
    .filter((v) => v.includes('='))
    .map((v) => v.split('=') as [string, string]),
);
const selected = clis
  .filter((c) => !only || only.includes(c.name))
  .map((c) => ({ ...c, version: pinnedOver.get(c.name) ?? c.version }));
const fixturesRoot = arg('fixtures-dir') ?? join(repoRoot, 'test/clients/fixtures');

// 1. Install the pinned CLIs (once per version set; npm's cache makes a re-install cheap).
const versions = selected.map((c) => `${c.pkg}@${c.version}`);
const clientsDir =
  arg('clients-dir') ?? join(tmpdir(), `polygate-clients-${selected.map((c) => `${c.name}-${c.version}`).join('_')}`);
if (!selected.every((c) => existsSync(join(clientsDir, 'node_modules/.bin', c.bin)))) {
  mkdirSync(clientsDir, { recursive: true });
  writeFileSync(join(clientsDir, 'package.json'), '{"name":"polygate-clients","private":true}\n');
  console.log(`installing ${versions.join(' ')} into ${clientsDir}`);
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', clientsDir, '--no-audit', '--no-fund', '--no-save', ...versions],
    { stdio: 'inherit', env: { ...process.env, PATH: `${dirname(node24)}:${process.env.PATH}` } },
  );
  if (npm.status !== 0) throw new Error(`npm install failed (${npm.status})`);
}

// 2. polygate with the four emulated upstreams and echo (the harness of test/e2e/matrix/): per CLI
// one model name whose route translates, one whose route relays.
// The hosted-search route: a Chat Completions upstream (no search of its own) where polygate runs
// web_search on the search-backend emulator. Gemini CLI's google_web_search asks its own model
// (gemini-3-flash-preview, its `web-search` alias) for the search: an operator maps that name too.
const web = await startSearchWeb();
const searchModel = 'm-chat-search';
const searchRoute = { routes: [{ provider: 'chat', model: models['openai-chat'].upstream, hosted_tools: 'run' }] };
// The cloud routes (#26): Claude on Bedrock and on Vertex.
const cloud = await startCloudRoutes();
const h = await startHarness({
  models: { [searchModel]: searchRoute, 'gemini-3-flash-preview': searchRoute, ...cloud.harness.models },
  providers: cloud.harness.providers,
  config: {
    search_backends: { web: { kind: 'searxng', url: `${web.url}/search` } },
    hosted_tools: { search_backend: 'web' },
  },
  env: cloud.harness.env,
});
const gw = h.gw;
type Route = 'translated' | 'relayed';
const targets: Record<CliName, Record<Route, UpstreamName>> = {
  'claude-code': { translated: 'openai-chat', relayed: 'anthropic' },
  codex: { translated: 'anthropic', relayed: 'openai-responses' },
  'gemini-cli': { translated: 'openai-chat', relayed: 'gemini' },
};
/** One CLI run: the route it takes, and what it must show besides a clean exit. */
type Run = {
  label: string;
  upstream: UpstreamName | Cloud;
  tool: boolean;
  reasoning: boolean;
  args?: string[];
  /** Asked to search the web on the hosted-search route (#27). */
  search?: boolean;
};
/**
 * Per CLI, a translated and a relayed route. Claude Code sends thinking and an effort by default:
 * those two runs check the upstream was asked to reason, and three more take it through every
 * other translated route (echo runs no tools, so there only the answer and the refusals count).
 */
function runsOf(cli: Cli): Run[] {
  const search: Run = {
    label: 'web search run by polygate',
    upstream: 'openai-chat',
    tool: true,
    reasoning: false,
    search: true,
  };
  if (searchOnly) return [search];
  const thinks = cli.name === 'claude-code';
  // Claude Code's body relayed in the cloud's envelope; Codex's Responses requests translated. Both
  // ask to reason there (Codex's effort becomes Claude's thinking on Converse, Gemini's thinkingConfig
  // on Vertex); on Converse the emulated Claude thinks before its tool call and refuses the next
  // turn unless that reasoning comes back signed.
  const cloudRuns: Run[] = cloudsOf(cli.name).map((upstream) => ({
    label: thinks ? 'relayed in the cloud envelope' : 'translated to the cloud',
    upstream,
    tool: true,
    reasoning: true,
  }));
  if (cloudOnly) return cloudRuns;
  const runs: Run[] = (['translated', 'relayed'] as const).map((route) => ({
    label: route,
    upstream: targets[cli.name][route],
    tool: true,
    reasoning: thinks,
  }));
  runs.push(search);
  if (!thinks) return [...runs, ...cloudRuns];
  // With its thinking shown (stream-json, verbose), Claude Code asks for it to be streamed
  // (`thinking.display`, the thinking-display beta): the request issue #29 saw refused.
  for (const upstream of ['openai-chat', 'openai-responses', 'gemini', 'echo'] as const)
    runs.push({
      label: 'translated, thinking shown',
      upstream,
      tool: upstream !== 'echo',
      reasoning: upstream !== 'echo',
      args: ['--output-format', 'stream-json', '--verbose'],
    });
  return [...runs, ...cloudRuns];
}
const emulatorOf = (u: UpstreamName | Cloud): Emulator | undefined =>
  isCloud(u) ? cloud.emulator[u] : u === 'echo' ? undefined : h.emulators[u];
const modelOf = (u: UpstreamName | Cloud): string => (isCloud(u) ? cloud.model[u] : models[u].client);
const proxy = await startCaptureProxy(gw.url);

// 3. Each CLI × route through polygate. With --capture, first each CLI straight against the
// emulator of its own format (no polygate in between): the whole conversation it has with a
// working upstream, stored as fixtures for test/clients/replay.test.ts.
type Result = { cli: CliName; route: string; ok: boolean; problems: string[] };
const results: Result[] = [];
for (const cli of selected) {
  if (capture) {
    const upstream = targets[cli.name].relayed;
    const emu = emulatorOf(upstream) as Emulator;
    const direct = await startCaptureProxy(emu.url);
    emu.reset();
    const result = await runOne(cli, { label: 'direct', upstream, tool: true, reasoning: false }, emu, direct);
    console.log(
      `${result.ok ? 'PASS' : 'FAIL'} ${cli.name} direct to the emulator (capture)${result.ok ? '' : `\n  ${result.problems.join('\n  ')}`}`,
    );
    await direct.close();
    // A conversation that failed even without polygate is the harness's fault: counted, stored nowhere.
    if (!result.ok) results.push(result);
    else {
      const dir = join(fixturesRoot, cli.name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      // The emulator refuses WebSocket upgrades (the CLI then falls back to HTTP): those attempts
      // carry no body to replay; the WebSocket path is checked through polygate above.
      const bodies = direct.captured.filter((c) => c.headers.upgrade?.toLowerCase() !== 'websocket');
      for (const [i, c] of bodies.entries()) {
        const fixture = toFixture(c, {
          client: cli.name,
          version: cli.version,
          route: 'direct',
          model: models[upstream].client,
        });
        writeFileSync(join(dir, `${i + 1}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
      }
    }
  }
  for (const run of runsOf(cli)) {
    const emu = emulatorOf(run.upstream);
    emu?.reset();
    const result = await runOne(cli, run, emu, proxy);
    results.push(result);
    console.log(
      `${result.ok ? 'PASS' : 'FAIL'} ${cli.name} ${result.route}${result.ok ? '' : `\n  ${result.problems.join('\n  ')}`}`,
    );
  }
}
await proxy.close();
await h.close();
await Promise.all([web.close(), cloud.close()]);
const failed = results.filter((r) => !r.ok);
console.log(`\nclients: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length === 0 ? 0 : 1);

async function runOne(cli: Cli, run: Run, emu: Emulator | undefined, proxy: CaptureProxy): Promise<Result> {
  const route = run.label;
  const scratch = mkdtempSync(join(tmpdir(), `polygate-${cli.name}-`));
  const home = join(scratch, 'home');
  const work = join(scratch, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const firstRequest = proxy.captured.length;
  const logFrom = gw.output().length;
  const marker = `PGMARK${randomBytes(6).toString('hex').toUpperCase()}`;
  const responder = toolResponder(run.search ? searchPlan(marker) : cli.plan({ work, marker }));
  emu?.respond(responder);
  const queriesBefore = web.queries.length;
  web.lead = run.search
    ? { title: 'Polygate news', url: `${web.url}/page/a`, content: `The search found ${marker}.` }
    : undefined;
  const prepared = cli.prepare({
    home,
    work,
    gateway: proxy.url,
    key: TEST_KEY,
    model: run.search ? searchModel : modelOf(run.upstream),
    marker,
    task: run.search ? 'search' : 'tool',
  });
  // Only the CLI's own environment: nothing of this shell's (keys, proxies) leaks in.
  const env = {
    PATH: `${dirname(node24)}:${process.env.PATH}`,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: scratch,
    ...prepared.env,
  };
  const out = await runProcess(
    join(clientsDir, 'node_modules/.bin', cli.bin),
    [...prepared.args, ...(run.args ?? [])],
    {
      cwd: prepared.cwd,
      env,
    },
  );
  const problems: string[] = [];
  if (out.timedOut) problems.push(`timed out after ${timeoutMs / 1000} s`);
  else if (out.code !== 0) problems.push(`exit code ${out.code}`);
  if (run.tool) {
    if (responder.calls === 0)
      problems.push('no request offering the tool reached the upstream, so it never called it');
    if (responder.resultsSeen === 0) problems.push(`the upstream never saw the tool result carrying ${marker}`);
    if (responder.leaks > 0)
      problems.push(`the marker ${marker} reached the upstream before the tool ran: the check proves nothing`);
    if (!out.stdout.includes(marker)) problems.push(`stdout lacks the marker ${marker}`);
    if (run.search && web.queries.length === queriesBefore)
      problems.push('polygate never asked the search backend: the search was not run by polygate');
  } else if (out.stdout.trim() === '') problems.push('no answer on stdout');
  const sentHere = proxy.captured.slice(firstRequest);
  // A refused model request fails the run even when the CLI recovered from it (issue #29).
  // Straight to an emulator (--capture) there is no polygate to count: the emulators refuse the
  // Responses WebSocket on purpose, and the CLI falls back to HTTP.
  const refused = route === 'direct' ? [] : sentHere.filter(isRefusedModelRequest);
  if (refused.length > 0)
    problems.push(
      `polygate refused ${refused.length} model request(s):\n    ${refused
        .map((c) => `${c.method} ${c.path} -> ${c.status}: ${(c.error ?? '').slice(0, 300)}`)
        .join('\n    ')}`,
    );
  if (
    run.reasoning &&
    emu &&
    !emu.requests.some((r) => offeredTools(r.body).length > 0 && asksToReason(run.upstream, r.body))
  )
    problems.push(`no request offering tools asked the ${run.upstream} upstream to reason (thinking was lost)`);
  // Through polygate only: the emulators speak HTTP alone, so a capture straight to one records
  // the CLI's HTTP fallback (the request bodies the fixtures keep are the same).
  if (cli.websocket && route !== 'direct') {
    const sent = sentHere;
    if (!sent.some((c) => c.method === 'GET' && c.path.startsWith('/v1/responses') && c.status === 101))
      problems.push('no Responses WebSocket was opened (GET /v1/responses -> 101)');
    const posts = sent.filter((c) => c.method === 'POST' && c.path.startsWith('/v1/responses')).length;
    if (posts > 0) problems.push(`fell back to HTTP: ${posts} POST /v1/responses`);
  }
  if (problems.length > 0) {
    writeFileSync(join(scratch, 'upstream-requests.json'), JSON.stringify(emu?.requests ?? [], null, 2));
    problems.push(`what reached the upstream: ${join(scratch, 'upstream-requests.json')}`);
    problems.push(
      `requests the CLI sent: ${proxy.captured
        .slice(firstRequest)
        .map((c) => `${c.method} ${c.path} -> ${c.status}`)
        .join(', ')}`,
    );
    problems.push(`stdout:\n${out.stdout.slice(-4000)}`, `stderr:\n${out.stderr.slice(-4000)}`);
    problems.push(
      `polygate log (tail):\n${gw
        .output()
        .slice(logFrom)
        .split('\n')
        .filter((l) => l.includes('request_id') || l.includes('"level":"error"'))
        .slice(-10)
        .join('\n')}`,
    );
  } else rmSync(scratch, { recursive: true, force: true });
  emu?.respond(undefined);
  return { cli: cli.name, route: `${route} (${run.upstream})`, ok: problems.length === 0, problems };
}

/**
 * A model request (any POST, or the Responses WebSocket's GET) polygate answered with a 4xx or
 * 5xx. HEAD probes (`HEAD /`, `HEAD /api/hello`) and other GETs are not model requests.
 */
function isRefusedModelRequest(c: Captured): boolean {
  if (c.status === undefined || c.status < 400) return false;
  return c.method === 'POST' || (c.method === 'GET' && c.path.startsWith('/v1/responses'));
}

type Json = Record<string, unknown>;
// A declaration, not a const: the top-level runs above call it before this line is reached.
function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether a request as the emulated upstream recorded it asks the model to reason. */
function asksToReason(upstream: UpstreamName | Cloud, body: unknown): boolean {
  if (!isObj(body)) return false;
  switch (upstream) {
    case 'anthropic':
    case 'bedrock':
    case 'vertex':
      return isObj(body.thinking) && body.thinking.type !== 'disabled';
    case 'openai-chat':
      return typeof body.reasoning_effort === 'string' && body.reasoning_effort !== 'none';
    case 'openai-responses':
      return isObj(body.reasoning) && typeof body.reasoning.effort === 'string' && body.reasoning.effort !== 'none';
    case 'bedrock-converse': {
      const fields = isObj(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
      return isObj(fields.thinking) && fields.thinking.type !== 'disabled';
    }
    case 'gemini':
    case 'vertex-gemini': {
      const config = isObj(body.generationConfig)
        ? body.generationConfig
        : isObj(body.generation_config)
          ? body.generation_config
          : {};
      const t = config.thinkingConfig ?? config.thinking_config;
      return isObj(t) && t.thinkingBudget !== 0 && t.thinking_budget !== 0;
    }
    case 'echo':
      return false;
    default: {
      const never: never = upstream;
      return never;
    }
  }
}

function runProcess(
  bin: string,
  args: string[],
  o: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((done) => {
    const child = spawn(bin, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    // The whole process group: CLIs start helpers (Codex's shell, Gemini's child node).
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, timedOut });
    });
  });
}
