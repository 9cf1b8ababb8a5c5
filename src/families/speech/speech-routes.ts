// The handlers of the `openai-audio` format's routes (adapters/openai-audio/index.ts, README
// "Families served"), and the start-up check that tells the operator which system packages
// local-speech is missing on this machine.
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Runtime } from '../../services/runtime/runtime.ts';
import { localEngines } from './local-speech-provider.ts';
import { speechHandler } from './speech-handler.ts';
import { describeMissing, missingTools, type MissingTool } from './system-tools.ts';
import { transcriptionHandler } from './transcription-handler.ts';

/** Route kinds `speech`, `transcription` and `translation`; a local tool's failure is logged on `log`. */
export const speechRouteHandlers = (log: Logger) => ({
  speech: (): Koa.Middleware => speechHandler(log),
  transcription: (): Koa.Middleware => transcriptionHandler('transcribe', log),
  translation: (): Koa.Middleware => transcriptionHandler('translate', log),
});

/** What a local-speech provider of this config cannot do on this machine, and odd routes to it. */
export function speechStartupWarnings(runtime: Runtime): string[] {
  const warnings: string[] = [];
  const local = Object.entries(runtime.config.providers).filter(
    ([name, p]) => p.type === 'local-speech' && !runtime.disabled.has(name),
  );
  if (local.length === 0) return warnings;
  const seen = new Set<string>();
  const missing: MissingTool[] = [...missingTools('synthesis'), ...missingTools('recognition')].filter(
    (m) => !seen.has(m.tool) && seen.add(m.tool),
  );
  for (const [name] of local) {
    if (missing.length > 0)
      warnings.push(
        `provider '${name}' (local-speech): ${describeMissing(missing)}; requests that need them answer 503`,
      );
  }
  const engines: string[] = Object.values(localEngines);
  for (const [model, m] of Object.entries(runtime.config.models)) {
    for (const r of m.routes) {
      if (runtime.config.providers[r.provider]?.type === 'local-speech' && !engines.includes(r.model ?? '')) {
        warnings.push(
          `model '${model}': local-speech route model '${r.model ?? '{model}'}' is not an engine (${engines.join(', ')}); it answers 400`,
        );
      }
    }
  }
  return warnings;
}
