// The client suite (`npm run test:clients`): installs pinned versions of Claude Code, Codex CLI and
// Gemini CLI into a temporary folder (never into the project), runs each unmodified and
// non-interactively against a real polygate on loopback, once on a translated route and once on a
// relayed (same-format) route, each to an emulated upstream that makes the CLI use one of its
// tools. Passes when every run exits 0, prints the marker only the tool could have read, and the
// upstream saw that tool result come back. Options:
//   --only=claude-code,codex       run some CLIs
//   --capture                      also run each CLI straight against its own format's emulator and
//                                  store what it sent as test/clients/fixtures/<cli>/<n>.json
//   --clients-dir=DIR              reuse an install (default: $TMPDIR/polygate-clients-<versions>)
//   --timeout=SECONDS              per CLI run (default 120)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { models, startHarness, type UpstreamName } from '../test/e2e/matrix/harness.ts';
import type { Emulator } from '../test/emulators/emulator-types.ts';
import { startCaptureProxy, type CaptureProxy } from '../test/clients/capture-proxy.ts';
import { clis, type Cli, type CliName } from '../test/clients/cli-clients.ts';
import { toFixture } from '../test/clients/fixtures.ts';
import { toolResponder } from '../test/clients/tool-responder.ts';
import { node24, repoRoot, TEST_KEY } from '../test/helpers/start-gateway.ts';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg('only')?.split(',');
const capture = process.argv.includes('--capture');
const timeoutMs = Number(arg('timeout') ?? 120) * 1000;
const selected = clis.filter((c) => !only || only.includes(c.name));

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
const h = await startHarness();
const gw = h.gw;
type Route = 'translated' | 'relayed';
const targets: Record<CliName, Record<Route, UpstreamName>> = {
  'claude-code': { translated: 'openai-chat', relayed: 'anthropic' },
  codex: { translated: 'anthropic', relayed: 'openai-responses' },
  'gemini-cli': { translated: 'openai-chat', relayed: 'gemini' },
};
const emulatorOf = (cli: CliName, route: Route): Emulator =>
  h.emulators[targets[cli][route] as Exclude<UpstreamName, 'echo'>];
const modelName = (cli: CliName, route: Route): string => models[targets[cli][route]].client;
const proxy = await startCaptureProxy(gw.url);

// 3. Each CLI × route through polygate. With --capture, first each CLI straight against the
// emulator of its own format (no polygate in between): the whole conversation it has with a
// working upstream, stored as fixtures for test/clients/replay.test.ts.
type Result = { cli: CliName; route: Route | 'direct'; ok: boolean; problems: string[] };
const results: Result[] = [];
for (const cli of selected) {
  if (capture) {
    const emu = emulatorOf(cli.name, 'relayed');
    const direct = await startCaptureProxy(emu.url);
    emu.reset();
    const result = await runOne(cli, 'direct', emu, direct);
    console.log(
      `${result.ok ? 'PASS' : 'FAIL'} ${cli.name} direct to the emulator (capture)${result.ok ? '' : `\n  ${result.problems.join('\n  ')}`}`,
    );
    await direct.close();
    // A conversation that failed even without polygate is the harness's fault: counted, stored nowhere.
    if (!result.ok) results.push(result);
    else {
      const dir = join(repoRoot, 'test/clients/fixtures', cli.name);
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
          model: modelName(cli.name, 'relayed'),
        });
        writeFileSync(join(dir, `${i + 1}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
      }
    }
  }
  for (const route of ['translated', 'relayed'] as const) {
    const emu = emulatorOf(cli.name, route);
    emu.reset();
    const result = await runOne(cli, route, emu, proxy);
    results.push(result);
    console.log(
      `${result.ok ? 'PASS' : 'FAIL'} ${cli.name} ${route}${result.ok ? '' : `\n  ${result.problems.join('\n  ')}`}`,
    );
  }
}
await proxy.close();
await h.close();
const failed = results.filter((r) => !r.ok);
console.log(`\nclients: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length === 0 ? 0 : 1);

async function runOne(cli: Cli, route: Route | 'direct', emu: Emulator, proxy: CaptureProxy): Promise<Result> {
  const scratch = mkdtempSync(join(tmpdir(), `polygate-${cli.name}-`));
  const home = join(scratch, 'home');
  const work = join(scratch, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const firstRequest = proxy.captured.length;
  const logFrom = gw.output().length;
  const marker = `PGMARK${randomBytes(6).toString('hex').toUpperCase()}`;
  const responder = toolResponder(cli.plan({ work, marker }));
  emu.respond(responder);
  const run = cli.prepare({
    home,
    work,
    gateway: proxy.url,
    key: TEST_KEY,
    model: route === 'direct' ? modelName(cli.name, 'relayed') : modelName(cli.name, route),
    marker,
  });
  // Only the CLI's own environment: nothing of this shell's (keys, proxies) leaks in.
  const env = {
    PATH: `${dirname(node24)}:${process.env.PATH}`,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: scratch,
    ...run.env,
  };
  const out = await runProcess(join(clientsDir, 'node_modules/.bin', cli.bin), run.args, { cwd: run.cwd, env });
  const problems: string[] = [];
  if (out.timedOut) problems.push(`timed out after ${timeoutMs / 1000} s`);
  else if (out.code !== 0) problems.push(`exit code ${out.code}`);
  if (responder.calls === 0) problems.push('no request offering the tool reached the upstream, so it never called it');
  if (responder.resultsSeen === 0) problems.push(`the upstream never saw the tool result carrying ${marker}`);
  if (responder.leaks > 0)
    problems.push(`the marker ${marker} reached the upstream before the tool ran: the check proves nothing`);
  if (!out.stdout.includes(marker)) problems.push(`stdout lacks the marker ${marker}`);
  // Through polygate only: the emulators speak HTTP alone, so a capture straight to one records
  // the CLI's HTTP fallback (the request bodies the fixtures keep are the same).
  if (cli.websocket && route !== 'direct') {
    const sent = proxy.captured.slice(firstRequest);
    if (!sent.some((c) => c.method === 'GET' && c.path.startsWith('/v1/responses') && c.status === 101))
      problems.push('no Responses WebSocket was opened (GET /v1/responses -> 101)');
    const posts = sent.filter((c) => c.method === 'POST' && c.path.startsWith('/v1/responses')).length;
    if (posts > 0) problems.push(`fell back to HTTP: ${posts} POST /v1/responses`);
  }
  if (problems.length > 0) {
    writeFileSync(join(scratch, 'upstream-requests.json'), JSON.stringify(emu.requests, null, 2));
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
  emu.respond(undefined);
  return { cli: cli.name, route, ok: problems.length === 0, problems };
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
