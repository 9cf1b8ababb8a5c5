// Runs one system program: spawn without a shell (arguments are never parsed by one), a hard
// timeout, cancellation when the client goes away, bounded output.
import { spawn } from 'node:child_process';

export type ToolRun = { timeoutMs: number; signal?: AbortSignal; maxStdoutBytes?: number };

export class ToolError extends Error {
  readonly tool: string;
  /** The program is not installed (spawn ENOENT). */
  readonly missing: boolean;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly exitCode: number | null;
  /** The tail of what it printed on stderr, for the log. */
  readonly stderr: string;
  constructor(tool: string, message: string, f: { missing?: boolean; timedOut?: boolean; aborted?: boolean; exitCode?: number | null; stderr?: string }) {
    super(message);
    this.tool = tool;
    this.missing = f.missing ?? false;
    this.timedOut = f.timedOut ?? false;
    this.aborted = f.aborted ?? false;
    this.exitCode = f.exitCode ?? null;
    this.stderr = f.stderr ?? '';
  }
}

const stderrTail = 2048;

export function runTool(bin: string, args: string[], opts: ToolRun): Promise<Buffer> {
  const tool = bin.split('/').pop() ?? bin;
  const maxOut = opts.maxStdoutBytes ?? 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new ToolError(tool, `${tool} not started: request aborted`, { aborted: true }));
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let settled = false;
    let why: 'timeout' | 'abort' | 'overflow' | undefined;
    const kill = (reason: typeof why): void => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timeout'), opts.timeoutMs);
    const onAbort = (): void => kill('abort');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (e: ToolError | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (e) reject(e);
      else resolve(Buffer.concat(out));
    };
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > maxOut) return kill('overflow');
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      err = (err + b.toString('utf8')).slice(-stderrTail);
    });
    child.once('error', (e: NodeJS.ErrnoException) => {
      const missing = e.code === 'ENOENT';
      finish(new ToolError(tool, missing ? `${tool} is not installed` : `${tool} could not be started (${e.code ?? e.message})`, { missing }));
    });
    child.once('close', (code, signal) => {
      if (why === 'timeout') return finish(new ToolError(tool, `${tool} timed out after ${opts.timeoutMs} ms`, { timedOut: true, stderr: err }));
      if (why === 'abort') return finish(new ToolError(tool, `${tool} stopped: request aborted`, { aborted: true, stderr: err }));
      if (why === 'overflow') return finish(new ToolError(tool, `${tool} printed more than ${maxOut} bytes`, { stderr: err }));
      if (code !== 0) return finish(new ToolError(tool, `${tool} failed (${signal ?? `exit ${code}`})`, { exitCode: code, stderr: err }));
      finish(undefined);
    });
  });
}
