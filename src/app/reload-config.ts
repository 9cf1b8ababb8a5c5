// Config hot reload: on a change of the file (fs.watch, debounced) and on SIGHUP, the file is read
// and validated as at start; a valid one becomes a new Runtime swapped in whole
// (RuntimeRef.current), an invalid one is refused with its problems in the log and the old config
// keeps serving. Requests in flight finish on the runtime they started with (they hold it in
// ctx.state.runtime); the old runtime's upstream pools close once the last of them has ended.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import { configReloadsTotal, primeMetrics } from '../infra/metrics/registry.ts';
import { Runtime, type RuntimeRef } from '../services/runtime/runtime.ts';
import type { GatewayConfig } from '../infra/config/gateway-config.ts';
import { ConfigError, parseConfig } from '../infra/config/load-config.ts';

export type ConfigReloader = {
  /** Reloads now (SIGHUP); resolves when this reload is done, refused or not. */
  reload(trigger: string): Promise<void>;
  /** Stops watching; a reload under way still finishes. */
  close(): void;
  /** Runtimes replaced by reloads whose requests have not all ended yet. */
  retiring(): Promise<void>;
};

/** Sections read once at start: changing them needs a restart, which the log says. */
const restartOnly: Array<keyof GatewayConfig> = ['listen', 'storage'];

export function startConfigReload(file: string, ref: RuntimeRef, log: Logger): ConfigReloader {
  let lastText: string | undefined;
  let running: Promise<void> | undefined;
  let again: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const retiring = new Set<Promise<void>>();

  void readFile(file, 'utf8').then(
    (t) => (lastText ??= t),
    () => {},
  );

  const once = async (trigger: string): Promise<void> => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      return refused(trigger, [`cannot read file: ${(e as Error).message}`]);
    }
    // Editors and `cp` fire several events per save; an unchanged file is not a reload.
    if (trigger === 'watch' && text === lastText) return;
    lastText = text;
    let next: Runtime;
    try {
      next = new Runtime(parseConfig(text, file));
    } catch (e) {
      return refused(trigger, e instanceof ConfigError ? e.problems : [(e as Error).message]);
    }
    const old = ref.current;
    // New keys, models and prices have their series at zero before their first request, not from
    // the next scrape on: an increase between the two would be the series' first sample, unseen.
    primeMetrics(next);
    ref.current = next;
    configReloadsTotal.inc({ outcome: 'ok' });
    log.info({ config: file, trigger }, 'config reloaded');
    for (const w of next.warnings) log.warn(w);
    for (const k of restartOnly) {
      if (JSON.stringify(old.config[k]) !== JSON.stringify(next.config[k]))
        log.warn(`config reload: '${k}' changed; it takes effect at the next restart`);
    }
    const closing = old
      .idle()
      .then(() => old.close())
      .catch((err: unknown) => log.error({ err }, 'closing the replaced runtime failed'))
      .finally(() => retiring.delete(closing));
    retiring.add(closing);
  };

  const refused = (trigger: string, problems: string[]): void => {
    configReloadsTotal.inc({ outcome: 'error' });
    log.error({ config: file, trigger, problems }, 'config reload refused; the running config stays in force');
  };

  const reload = (trigger: string): Promise<void> => {
    if (running) {
      // One more pass after the current one sees the latest file, however many events came.
      again = trigger;
      return running;
    }
    running = (async () => {
      try {
        await once(trigger);
        while (again !== undefined) {
          const t = again;
          again = undefined;
          await once(t);
        }
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  // The directory, not the file: editors save by writing a new file and renaming it over the
  // old one, which ends a watch on the old inode.
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      if (!ref.current.config.reload.watch) return;
      clearTimeout(timer);
      timer = setTimeout(() => void reload('watch'), ref.current.config.reload.debounce_ms);
    });
    watcher.on('error', (err) => log.warn({ err }, 'config file watch failed; reload with SIGHUP'));
  } catch (err) {
    log.warn({ err }, 'cannot watch the config file; reload with SIGHUP');
  }

  return {
    reload,
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
    retiring: async () => {
      await Promise.allSettled([...retiring]);
    },
  };
}
