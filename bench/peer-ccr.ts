// The second peer: claude-code-router (CCR), which takes Anthropic Messages from Claude Code and
// routes them to other providers, translating to OpenAI Chat Completions on the way: the same
// path as polygate's "E → openai-chat (translate)". Installed from npm into a temporary folder
// (never into this repo) like Portkey (peer-portkey.ts), and run in the foreground on the gateway
// core: `cli.js start` is the server itself (`ccr code` and `ccr restart` daemonize it by spawning
// `cli.js start` detached). It reads its config from $HOME/.claude-code-router/config.json, so
// each start gets a fresh HOME in a temporary folder (a stale pid file there would make `start`
// believe a server is already running and exit).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MOCK_KEY } from './paths.ts';
import { freePort, GATEWAY_CORE, startNodeProcess, type Proc } from './processes.ts';

/** Pinned so reruns compare the same peer; BENCH_CCR_VERSION overrides. */
export const CCR_VERSION = process.env.BENCH_CCR_VERSION ?? '2.0.0';
/** The model name clients send; CCR's router sends every request to the mock under it. */
export const CCR_MODEL = 'gpt-bench';

/** Installs @musistudio/claude-code-router into os.tmpdir() once per version; returns its CLI. */
export function installCcr(): string {
  const dir = join(tmpdir(), `polygate-bench-ccr-${CCR_VERSION}`);
  const cli = join(dir, 'node_modules/@musistudio/claude-code-router/dist/cli.js');
  if (!existsSync(cli)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ private: true, dependencies: { '@musistudio/claude-code-router': CCR_VERSION } }, null, 2),
    );
    process.stderr.write(`installing @musistudio/claude-code-router@${CCR_VERSION} into ${dir}\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return cli;
}

/**
 * CCR's config (the format its README documents): one OpenAI-compatible provider, the mock's Chat
 * Completions endpoint, as the default route. Its log stays on (the default) at `info`, the
 * level polygate's access log is written at; CCR's own default level is `debug`.
 */
function ccrConfig(port: number, mockUrl: string): Record<string, unknown> {
  return {
    PORT: port,
    HOST: '127.0.0.1',
    LOG: true,
    LOG_LEVEL: 'info',
    Providers: [
      { name: 'mock', api_base_url: `${mockUrl}/v1/chat/completions`, api_key: MOCK_KEY, models: [CCR_MODEL] },
    ],
    Router: { default: `mock,${CCR_MODEL}` },
  };
}

export async function startCcr(mockUrl: string): Promise<Proc> {
  const cli = installCcr();
  const home = mkdtempSync(join(tmpdir(), 'polygate-bench-ccr-home-'));
  mkdirSync(join(home, '.claude-code-router'));
  const port = await freePort();
  writeFileSync(join(home, '.claude-code-router/config.json'), JSON.stringify(ccrConfig(port, mockUrl), null, 2));
  const proc = await startNodeProcess('claude-code-router', cli, {
    core: GATEWAY_CORE,
    cwd: home,
    port,
    env: { HOME: home },
    args: () => ['start'],
  });
  // Its log (two lines per request) is deleted with the folder once it has stopped.
  return { ...proc, stop: () => proc.stop().then(() => rmSync(home, { recursive: true, force: true })) };
}
