// The built-in `local-speech` provider: espeak-ng speaks, ffmpeg encodes and decodes, pocketsphinx
// listens (US English). Everything runs as child processes in a private temporary directory
// that is removed when the request is done.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { speechContentType } from '../../../adapters/openai-audio/index.ts';
import { GatewayError, invalid } from '../../ir/gateway-error.ts';
import { speechVoices, type SpeechRequest, type SpeechVoice } from '../../ir/speech-request.ts';
import type { TranscriptionRequest } from '../../ir/transcription.ts';
import type { AudioCall, AudioProvider, SpeechOutput, TranscriptionOutput } from './audio-provider.ts';
import { buildTranscript, type Tokenize } from './build-transcript.ts';
import { rateFor, synthesizeWav } from './espeak.ts';
import { encodeSpeech, toRecognizerWav } from './ffmpeg.ts';
import { recognize } from './pocketsphinx.ts';
import { ToolError } from './run-tool.ts';
import { findExecutable, findRecognizer, requireTools } from './system-tools.ts';
import { readWavInfo } from './wav-header.ts';
import { tokenizer } from '../../services/tokens/estimate-tokens.ts';

/** The engine names a local-speech route's `model` may carry. */
export const localEngines = { synthesis: 'espeak', recognition: 'pocketsphinx' } as const;

const toolTimeoutMs = 60_000;

/**
 * At most this many requests run their programs at once; the rest wait their turn. Recognition
 * keeps a core busy, so more at once would only slow every one of them down.
 */
const maxConcurrent = Math.max(2, availableParallelism());

export class LocalSpeechProvider implements AudioProvider {
  readonly name: string;
  readonly wireFormat = 'local-speech' as const;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(name: string) {
    this.name = name;
  }

  async synthesize(req: SpeechRequest, engine: string, call: AudioCall): Promise<SpeechOutput> {
    this.#checkEngine(engine, 'synthesis', req.model);
    if (req.streamFormat === 'sse') throw this.#unsupported('stream_format', "stream_format 'sse' (only 'audio')");
    this.#rejectExtra(Object.keys(req.extra));
    if (req.instructions !== undefined)
      call.warn('instructions', `provider '${this.name}' (local-speech) has no style control; instructions ignored`);
    requireTools(this.name, 'synthesis');
    const espeak = findExecutable('espeak-ng') ?? 'espeak-ng';
    const ffmpeg = findExecutable('ffmpeg') ?? 'ffmpeg';
    const { rate, tempo } = rateFor(req.speed ?? 1);
    return this.#inTempDir(async (dir) => {
      const run = { timeoutMs: toolTimeoutMs, signal: call.signal };
      const wav = await synthesizeWav(espeak, dir, req.input, localVoice(req.voice, call), rate, run);
      const spoken = await readWavInfo(wav);
      const out = await encodeSpeech(ffmpeg, wav, dir, req.format, tempo, run);
      const body = await readFile(out);
      return {
        contentType: speechContentType(req.format),
        body,
        outputSeconds: Promise.resolve(spoken ? spoken.durationSeconds / tempo : undefined),
      };
    });
  }

  async transcribe(req: TranscriptionRequest, engine: string, call: AudioCall): Promise<TranscriptionOutput> {
    this.#checkEngine(engine, 'recognition', req.model);
    if (req.stream) throw this.#unsupported('stream', 'streamed transcription');
    this.#rejectExtra(req.extra.map(([k]) => k));
    if (req.language !== undefined && req.language !== 'en') {
      const message =
        req.task === 'translate'
          ? `language: provider '${this.name}' (local-speech) recognizes English only, so it translates only English audio; '${req.language}' audio is not supported`
          : `language: provider '${this.name}' (local-speech) recognizes English only; '${req.language}' is not supported`;
      throw invalid('language', message);
    }
    if (req.prompt !== undefined)
      call.warn('prompt', `provider '${this.name}' (local-speech) cannot be guided by a prompt; prompt ignored`);
    if (req.temperature !== undefined && req.temperature > 0) {
      call.warn('temperature', `provider '${this.name}' (local-speech) decodes deterministically; temperature ignored`);
    }
    requireTools(this.name, 'recognition');
    const ffmpeg = findExecutable('ffmpeg') ?? 'ffmpeg';
    const recognizer = findRecognizer();
    if (!recognizer)
      throw new GatewayError('unavailable', `provider '${this.name}' (local-speech): pocketsphinx is not installed`);
    return this.#inTempDir(async (dir) => {
      let wav: string;
      try {
        wav = await toRecognizerWav(ffmpeg, req.file.path, dir, { timeoutMs: toolTimeoutMs, signal: call.signal });
      } catch (e) {
        if (e instanceof ToolError && e.exitCode !== null)
          throw invalid('file', `file: '${req.file.filename.slice(0, 64)}' could not be decoded as audio`);
        throw e;
      }
      const duration = (await readWavInfo(wav))?.durationSeconds ?? 0;
      // Recognition runs at several times real time here; allow generously for slow machines.
      const utterances = await recognize(recognizer, wav, { timeoutMs: 30_000 + duration * 3000, signal: call.signal });
      const tokenize: Tokenize = (text) => tokenizer().encode(text);
      const transcript = buildTranscript(req.task, utterances, duration, {
        temperature: req.temperature ?? 0,
        tokenize,
      });
      return { kind: 'transcript', transcript };
    });
  }

  #checkEngine(engine: string, capability: keyof typeof localEngines, model: string): void {
    if (engine === localEngines[capability]) return;
    const other = capability === 'synthesis' ? localEngines.recognition : localEngines.synthesis;
    const does = capability === 'synthesis' ? 'synthesize speech' : 'transcribe or translate audio';
    throw invalid(
      'model',
      engine === other
        ? `model: '${model}' is a ${other === 'espeak' ? 'text-to-speech' : 'speech-recognition'} model; it cannot ${does}`
        : `model: '${model}' routes to local-speech engine '${engine}'; the engines are '${localEngines.synthesis}' and '${localEngines.recognition}'`,
    );
  }

  #unsupported(field: string, what: string): GatewayError {
    return invalid(field, `${field}: provider '${this.name}' (local-speech) does not support ${what}`);
  }

  #rejectExtra(fields: string[]): void {
    if (fields.length > 0) throw this.#unsupported(fields[0], `the field '${fields[0]}'`);
  }

  async #inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
    if (this.#running >= maxConcurrent) await new Promise<void>((go) => this.#waiting.push(go));
    this.#running++;
    const dir = await mkdtemp(join(tmpdir(), 'polygate-speech-')).catch((e: unknown) => {
      this.#release();
      throw e;
    });
    try {
      return await work(dir);
    } catch (e) {
      throw toolFailure(e, this.name);
    } finally {
      await rm(dir, { recursive: true, force: true });
      this.#release();
    }
  }

  #release(): void {
    this.#running--;
    this.#waiting.shift()?.();
  }
}

/** A child process failure as the client should see it; stderr stays in the log, not the answer. */
function toolFailure(e: unknown, provider: string): unknown {
  if (!(e instanceof ToolError)) return e;
  const err = e.missing
    ? new GatewayError('unavailable', `provider '${provider}' (local-speech): ${e.message}`)
    : e.timedOut
      ? new GatewayError('timeout', `provider '${provider}' (local-speech): ${e.message}`)
      : e.aborted
        ? new GatewayError('internal', 'request aborted', { status: 499 })
        : new GatewayError('internal', `provider '${provider}' (local-speech): ${e.message}`);
  // Kept for the request log (see logToolFailure); never part of the client's answer.
  Object.defineProperty(err, 'cause', { value: e });
  return err;
}

/** The local engine's voice for `voice`: a voice newer than polygate is spoken as `alloy`, warned (issue #29). */
function localVoice(voice: string, call: AudioCall): SpeechVoice {
  if ((speechVoices as readonly string[]).includes(voice)) return voice as SpeechVoice;
  call.warn('voice', `'${voice.slice(0, 40)}' is newer than polygate; spoken with 'alloy'`);
  return 'alloy';
}
