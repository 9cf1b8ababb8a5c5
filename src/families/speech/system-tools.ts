// The Debian-packaged programs behind the `local-speech` provider, found on PATH at the moment of
// use. A missing one is a clear 503 naming the apt package, never a crash (docs/architecture.md).
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { GatewayError } from '../../ir/gateway-error.ts';

export type SpeechCapability = 'synthesis' | 'recognition';

/** A program (or data) local-speech needs, and the Debian package that ships it. */
export type MissingTool = { tool: string; aptPackage: string };

/**
 * The recognizer CLI: `pocketsphinx_continuous` of Debian's 0.8+5prealpha packages (bookworm and
 * older), or the `pocketsphinx` of 5.x (JSON lines out).
 */
export type Recognizer = { kind: 'continuous' | 'json-lines'; bin: string };

/** Where Debian's pocketsphinx-en-us puts the acoustic model the 5prealpha CLI loads by default. */
export const legacyModelDir = '/usr/share/pocketsphinx/model/en-us/en-us';

export function findExecutable(name: string, pathEnv: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; next PATH entry
    }
  }
  return undefined;
}

export function findRecognizer(pathEnv?: string): Recognizer | undefined {
  const legacy = findExecutable('pocketsphinx_continuous', pathEnv);
  if (legacy) return { kind: 'continuous', bin: legacy };
  const modern = findExecutable('pocketsphinx', pathEnv);
  return modern ? { kind: 'json-lines', bin: modern } : undefined;
}

export function missingTools(capability: SpeechCapability, pathEnv?: string): MissingTool[] {
  const missing: MissingTool[] = [];
  if (!findExecutable('ffmpeg', pathEnv)) missing.push({ tool: 'ffmpeg', aptPackage: 'ffmpeg' });
  if (capability === 'synthesis') {
    if (!findExecutable('espeak-ng', pathEnv)) missing.push({ tool: 'espeak-ng', aptPackage: 'espeak-ng' });
    return missing;
  }
  const recognizer = findRecognizer(pathEnv);
  if (!recognizer) missing.push({ tool: 'pocketsphinx', aptPackage: 'pocketsphinx' });
  else if (recognizer.kind === 'continuous' && !existsSync(legacyModelDir)) {
    missing.push({ tool: 'the pocketsphinx US English model', aptPackage: 'pocketsphinx-en-us' });
  }
  return missing;
}

export function describeMissing(missing: MissingTool[]): string {
  const tools = missing.map((m) => m.tool).join(', ');
  const packages = [...new Set(missing.map((m) => m.aptPackage))].join(' ');
  return `${tools} ${missing.length === 1 ? 'is' : 'are'} not installed; install with: apt-get install ${packages}`;
}

/** Throws the 503 a client sees when this machine lacks what the capability needs. */
export function requireTools(provider: string, capability: SpeechCapability): void {
  const missing = missingTools(capability);
  if (missing.length === 0) return;
  const what = capability === 'synthesis' ? 'synthesize speech' : 'recognize speech';
  throw new GatewayError(
    'unavailable',
    `provider '${provider}' (local-speech) cannot ${what}: ${describeMissing(missing)}`,
  );
}
