// The peer measured side by side: Portkey's AI gateway from npm, installed into a temporary
// folder (never into this repo) and run the way its README says, headless, on the gateway core.
// It reaches the mock through its "custom host" headers, on the Chat Completions pass-through path.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATEWAY_CORE, startNodeProcess, type Proc } from './processes.ts';

/** Pinned so reruns compare the same peer; BENCH_PORTKEY_VERSION overrides. */
export const PORTKEY_VERSION = process.env.BENCH_PORTKEY_VERSION ?? '1.15.2';
/**
 * Portkey's package leaves @hono/node-server at ^1.3.3 and ships no lockfile. In the releases npm
 * resolves today (1.14.4, 1.19.x tried), that server's Response keeps the upstream fetch
 * Response's immutable Headers when Portkey re-wraps a stream with `new Response(body, upstream)`,
 * and Portkey then appends its own headers: every stream fails with a 500 ("TypeError:
 * immutable"). With 1.13.8 Portkey streams as its authors ran it.
 */
export const HONO_NODE_SERVER_VERSION = process.env.BENCH_PORTKEY_HONO_NODE_SERVER ?? '1.13.8';

/** Installs @portkey-ai/gateway into os.tmpdir() once per version; returns its start script. */
export function installPortkey(): string {
  const dir = join(tmpdir(), `polygate-bench-portkey-${PORTKEY_VERSION}-hono-${HONO_NODE_SERVER_VERSION}`);
  const script = join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(script)) {
    mkdirSync(dir, { recursive: true });
    const manifest = {
      private: true,
      dependencies: { '@portkey-ai/gateway': PORTKEY_VERSION },
      overrides: { '@hono/node-server': HONO_NODE_SERVER_VERSION },
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    process.stderr.write(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${dir}\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return script;
}

export type Peer = { proc: Proc; headers: Record<string, string> };

export async function startPortkey(mockUrl: string): Promise<Peer> {
  const script = installPortkey();
  const proc = await startNodeProcess('portkey', script, {
    core: GATEWAY_CORE,
    cwd: join(script, '../../../../..'),
    args: (port) => [`--port=${port}`, '--headless'],
  });
  return { proc, headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${mockUrl}/v1` } };
}
