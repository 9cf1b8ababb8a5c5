// Runs one system program: spawn without a shell (arguments are never parsed by one), a hard
// timeout, cancellation when the client goes away, bounded output. Every way a spawn can fail
// (ENOENT, EMFILE, EAGAIN, an argument Node refuses) rejects this call and nothing else: an
// 'error' event nobody listens to would end the whole process.
import { spawn, type ChildProcess } from 'node:child_process';

export type ToolRun = {
  timeoutMs: number;
  signal?: AbortSignal;
  maxStdoutBytes?: number;
  /** Written to the program's stdin (else stdin is closed). */ stdin?: string;
};

export class ToolError extends Error {
  readonly tool: string;
  /** The program is not installed (spawn ENOENT). */
  readonly missing: boolean;
  /**
   * Running it again cannot help: the program is missing or Node refused the arguments (a NUL
   * byte, say). A start that failed for want of resources (EMFILE, EAGAIN) may succeed later.
   */
  readonly permanent: boolean;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly exitCode: number | null;
  /** The tail of what it printed on stderr, for the log. */
  readonly stderr: string;
  constructor(
    tool: string,
    message: string,
    f: {
      missing?: boolean;
      permanent?: boolean;
      timedOut?: boolean;
      aborted?: boolean;
      exitCode?: number | null;
      stderr?: string;
    },
  ) {
    super(message);
    this.tool = tool;
    this.missing = f.missing ?? false;
    this.permanent = f.permanent ?? this.missing;
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
    if (opts.signal?.aborted)
      return reject(new ToolError(tool, `${tool} not started: request aborted`, { aborted: true }));
    let child: ChildProcess;
    try {
      child = spawn(bin, args, {
        stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
    } catch (e) {
      // Thrown, not emitted: Node refused the arguments (ERR_INVALID_ARG_VALUE for a NUL byte).
      return reject(new ToolError(tool, `${tool} could not be started: ${(e as Error).message}`, { permanent: true }));
    }
    // First of all: a failed start (EMFILE, ENOENT) is emitted on the next tick, and with EMFILE
    // Node sets up no stdio pipes at all.
    child.once('error', (e: NodeJS.ErrnoException) => {
      const missing = e.code === 'ENOENT';
      finish(
        new ToolError(
          tool,
          missing ? `${tool} is not installed` : `${tool} could not be started (${e.code ?? e.message})`,
          { missing },
        ),
      );
    });
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
    child.stdout?.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > maxOut) return kill('overflow');
      out.push(b);
    });
    child.stderr?.on('data', (b: Buffer) => {
      err = (err + b.toString('utf8')).slice(-stderrTail);
    });
    // A program that exits without reading its input makes the write fail with EPIPE; the exit
    // code tells what happened.
    child.stdin?.on('error', () => {});
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
    child.once('close', (code, signal) => {
      if (why === 'timeout')
        return finish(
          new ToolError(tool, `${tool} timed out after ${opts.timeoutMs} ms`, { timedOut: true, stderr: err }),
        );
      if (why === 'abort')
        return finish(new ToolError(tool, `${tool} stopped: request aborted`, { aborted: true, stderr: err }));
      if (why === 'overflow')
        return finish(new ToolError(tool, `${tool} printed more than ${maxOut} bytes`, { stderr: err }));
      if (code !== 0)
        return finish(
          new ToolError(tool, `${tool} failed (${signal ?? `exit ${code}`})`, { exitCode: code, stderr: err }),
        );
      finish(undefined);
    });
  });
}
