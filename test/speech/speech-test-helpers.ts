// Shared by the family B end-to-end tests: inspect audio with the real ffprobe, start a gateway on
// the default config, count words recovered from a known sentence.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startGateway, testConfig, type Gateway } from '../helpers/start-gateway.ts';

export type Probe = { codec: string; duration: number; sampleRate: number; channels: number; format: string };

/** ffprobe's view of the bytes. Raw PCM needs its layout stated: s16le, 24 kHz, mono. */
export function probe(bytes: Uint8Array, opts: { rawPcm?: boolean } = {}): Probe {
  const dir = mkdtempSync(join(tmpdir(), 'polygate-probe-'));
  const file = join(dir, 'audio');
  try {
    writeFileSync(file, bytes);
    const input = opts.rawPcm ? ['-f', 's16le', '-ar', '24000', '-ac', '1', file] : [file];
    const out = execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', ...input], {
      encoding: 'utf8',
    });
    const j = JSON.parse(out) as { streams: Array<Record<string, string | number>>; format: Record<string, string> };
    const s = j.streams[0];
    return {
      codec: String(s.codec_name),
      duration: Number(j.format.duration ?? s.duration),
      sampleRate: Number(s.sample_rate),
      channels: Number(s.channels),
      format: j.format.format_name,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The shipped config/gateway.yaml, with no upstream keys: what a new user runs. */
export function startDefaultGateway(): Promise<Gateway> {
  return startGateway(join(repoRoot, 'config/gateway.yaml'), {
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    GEMINI_API_KEY: '',
    POLYGATE_KEY: '',
  });
}
export const DEMO_KEY = 'sk-polygate-demo';

/** Share of the sentence's words found in the transcript (case and punctuation ignored). */
export function wordRecall(sentence: string, transcript: string): number {
  const words = (s: string): string[] => s.toLowerCase().match(/[a-z']+/g) ?? [];
  const heard = new Set(words(transcript));
  const said = words(sentence);
  return said.filter((w) => heard.has(w)).length / said.length;
}

/** A counter's value from the Prometheus text of GET /metrics. */
export async function metricValue(
  gw: Pick<Gateway, 'url'>,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** A test config whose speech models run on local-speech: tts-1 on espeak, whisper-1 on pocketsphinx. */
export const localSpeechConfig = (extra: Record<string, unknown> = {}): Record<string, unknown> =>
  testConfig({
    providers: { speech: { type: 'local-speech' } },
    models: {
      'tts-1': { routes: [{ provider: 'speech', model: 'espeak' }] },
      'whisper-1': { routes: [{ provider: 'speech', model: 'pocketsphinx' }] },
    },
    ...extra,
  });
