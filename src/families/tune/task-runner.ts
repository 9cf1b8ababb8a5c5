// The background side of the `tune` format, started with the server (src/main.ts): claims due tasks and
// due callbacks from the store and advances them. Work is claimed with a lease, so a restart (or
// another instance, with a shared store) picks up whatever was left, and nothing waits in memory.
import type { Logger } from 'pino';
import type { Runtime, RuntimeRef } from '../../services/runtime/runtime.ts';
import type { BreakerBoard } from '../../services/resilience/breaker-board.ts';
import type { Store } from '../../infra/store/store.ts';
import { deliverCallbacks } from './callback-deliverer.ts';
import { onTaskQueued } from './task-service.ts';
import { advanceTasks } from './task-poller.ts';
import { TaskStore } from './task-store.ts';
import { tuneProvidersOf } from './tune-providers.ts';

export type TuneRunner = { stop(): Promise<void> };

/** Bounds on work in flight, so a burst of due tasks cannot open unbounded upstream calls. */
const maxTasksInFlight = 200;
const maxCallbacksInFlight = 50;

/** Where clients reach polygate, for audio URLs in callback bodies. */
export function publicOrigin(runtime: Runtime, port: number): string {
  const configured = runtime.config.tune.public_base_url;
  if (configured) return configured.replace(/\/+$/, '');
  let host = runtime.config.listen.host;
  if (host === '0.0.0.0' || host === '::' || host === '') host = '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function configWarnings(runtime: Runtime): string[] {
  const t = runtime.config.tune;
  const w: string[] = [];
  if (!t.callback.secret) w.push('tune.callback.secret is empty: notify_hook callbacks are sent unsigned');
  for (const m of t.music_models) {
    if (!runtime.router.has(m))
      w.push(`tune.music_models: '${m}' is not under models:, so submissions with mv '${m}' answer 503`);
  }
  if (t.lyrics_model && !runtime.router.has(t.lyrics_model))
    w.push(`tune.lyrics_model: '${t.lyrics_model}' is not under models:`);
  return w;
}

/** `services`: the gateway's (src/services/runtime/services.ts). */
export function startTuneRunner(
  services: { ref: RuntimeRef; log: Logger; store: Store; breakers: BreakerBoard },
  opts: { port: number },
): TuneRunner {
  const { ref, log } = services;
  const abort = new AbortController();
  const tasks = new TaskStore(services.store);
  const inFlight = new Set<Promise<void>>();
  let tasksBusy = 0;
  let callbacksBusy = 0;
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let warnedFor: Runtime | undefined;

  const track = (p: Promise<void>, done: () => void): void => {
    const q = p
      .catch((err: unknown) => log.error({ err }, 'tune background step crashed'))
      .finally(() => {
        done();
        inFlight.delete(q);
      });
    inFlight.add(q);
  };

  const tick = async (): Promise<void> => {
    const runtime = ref.current;
    if (warnedFor !== runtime) {
      warnedFor = runtime;
      for (const w of configWarnings(runtime)) log.warn(w);
    }
    const now = Date.now();
    if (tasksBusy < maxTasksInFlight) {
      // tune.task_lease_ms (default 120 s): long enough for the slowest step (a 30 s upstream call, a
      // sandbox render); a crashed holder's task waits at most this long for another instance.
      const claimed = await tasks.claimDue(
        now,
        Math.min(100, maxTasksInFlight - tasksBusy),
        runtime.config.tune.task_lease_ms,
      );
      if (claimed.length > 0) {
        tasksBusy += claimed.length;
        const deps = {
          runtime,
          tasks,
          providers: tuneProvidersOf(runtime, tasks.store),
          breakers: services.breakers,
          log,
          origin: publicOrigin(runtime, opts.port),
          signal: abort.signal,
          onCallbackQueued: wake,
        };
        track(advanceTasks(claimed, deps), () => (tasksBusy -= claimed.length));
      }
    }
    if (callbacksBusy < maxCallbacksInFlight) {
      const cfg = runtime.config.tune;
      const claimed = await tasks.claimCallbacks(
        now,
        maxCallbacksInFlight - callbacksBusy,
        cfg.callback.timeout_ms * 2 + 10_000,
      );
      if (claimed.length > 0) {
        callbacksBusy += claimed.length;
        const deps = { tune: cfg, allowPrivate: runtime.config.outbound.allow_private_addresses, tasks, log };
        track(deliverCallbacks(claimed, deps), () => (callbacksBusy -= claimed.length));
      }
    }
  };

  /** Half the shortest configured interval, within 10 ms to 500 ms: due work starts promptly, idle costs little. */
  const period = (): number => {
    const t = ref.current.config.tune;
    return Math.max(10, Math.min(500, Math.floor(Math.min(t.poll_interval_ms, t.callback.backoff_ms) / 2)));
  };

  const loop = async (): Promise<void> => {
    timer = undefined;
    if (abort.signal.aborted) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      await tick();
    } catch (err) {
      log.error({ err }, 'tune task runner tick failed');
    } finally {
      ticking = false;
    }
    if (abort.signal.aborted) return;
    if (again) {
      again = false;
      timer = setTimeout(loop, 0);
    } else timer = setTimeout(loop, period());
  };

  function wake(): void {
    if (abort.signal.aborted) return;
    if (ticking) again = true;
    else {
      clearTimeout(timer);
      timer = setTimeout(loop, 0);
    }
  }

  const unsubscribe = onTaskQueued(services.store, wake);
  timer = setTimeout(loop, 0);

  return {
    async stop() {
      unsubscribe();
      abort.abort();
      clearTimeout(timer);
      // Steps in flight finish (each bounded by its own timeouts); anything cut short resumes from the store.
      await Promise.allSettled([...inFlight]);
    },
  };
}
