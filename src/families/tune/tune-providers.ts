import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../services/runtime/runtime.ts';
import { storeFilesDir } from '../../infra/store/open-store.ts';
import type { Store } from '../../infra/store/store.ts';
import { HttpTuneProvider } from './http-tune-provider.ts';
import { SandboxTuneProvider } from './sandbox-tune-provider.ts';
import type { TuneProvider } from './tune-provider.ts';

// Music providers are built from a runtime on first use and cached with it (src/services/runtime/runtime.ts
// builds the chat side), so a config reload brings fresh providers along with the new runtime.
const byRuntime = new WeakMap<Runtime, Map<string, TuneProvider>>();
/**
 * Sandbox providers outlive a reload: their renders in flight are process state, and their
 * jobs are in the store anyway. They are kept with the store they render into (one per gateway,
 * src/services/runtime/services.ts), so two gateways in one process never share one.
 */
const sandboxesByStore = new WeakMap<Store, Map<string, SandboxTuneProvider>>();
const sandboxesOf = (store: Store): Map<string, SandboxTuneProvider> => {
  let m = sandboxesByStore.get(store);
  if (!m) sandboxesByStore.set(store, (m = new Map()));
  return m;
};
let memoryAudioDir: string | undefined;

/** Where sandbox audio lives: beside the sqlite file (it survives restarts with the tasks), else a temporary directory. */
export function sandboxAudioDir(runtime: Runtime): string {
  const dir = storeFilesDir(runtime.config.storage);
  if (dir) return join(dir, 'tune-audio');
  memoryAudioDir ??= mkdtempSync(join(tmpdir(), 'polygate-audio-'));
  return memoryAudioDir;
}

/** Enabled music providers of this runtime by name (`tune` and `sandbox-tune` types). */
export function tuneProvidersOf(runtime: Runtime, store: Store): Map<string, TuneProvider> {
  let m = byRuntime.get(runtime);
  if (m) return m;
  m = new Map();
  for (const [name, p] of Object.entries(runtime.config.providers)) {
    if (runtime.disabled.has(name)) continue;
    if (p.type === 'tune') m.set(name, new HttpTuneProvider(name, p, runtime.dispatcher));
    else if (p.type === 'sandbox-tune') {
      const sandboxes = sandboxesOf(store);
      let s = sandboxes.get(name);
      if (!s)
        sandboxes.set(
          name,
          (s = new SandboxTuneProvider(name, store, sandboxAudioDir(runtime), runtime.config.tune.sandbox_delay_ms)),
        );
      s.delayMs = runtime.config.tune.sandbox_delay_ms;
      m.set(name, s);
    }
  }
  byRuntime.set(runtime, m);
  return m;
}

/** Any sandbox provider of the gateway with this store, for serving its audio. */
export function anySandbox(store: Store): SandboxTuneProvider | undefined {
  return sandboxesByStore.get(store)?.values().next().value;
}
