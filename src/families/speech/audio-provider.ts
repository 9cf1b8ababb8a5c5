// What a provider that speaks or listens offers the speech handlers.
import type { Readable } from 'node:stream';
import type { SpeechRequest } from '../../ir/speech-request.ts';
import type { RouteTimeouts } from '../../infra/config/route-policy.ts';
import type { Transcript, TranscriptionRequest } from '../../ir/transcription.ts';

/** The upstream format label of metrics and logs: built-in engine or an OpenAI-compatible HTTP API. */
export type AudioWireFormat = 'local-speech' | 'openai-audio';

export type AudioCall = {
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Records a field the provider drops (x-polygate-warnings header, metric). */
  warn: (field: string, message: string) => void;
  /** The route's upstream timeouts (docs/resilience.md), as for chat routes. */
  timeouts: RouteTimeouts;
};

export type SpeechOutput = {
  contentType: string;
  body: Buffer | Readable;
  /** Seconds of audio produced, once known (undefined when the provider cannot tell). */
  outputSeconds: Promise<number | undefined>;
};

/** A transcript polygate encodes itself, or an upstream answer relayed as it came. */
export type TranscriptionOutput =
  | { kind: 'transcript'; transcript: Transcript }
  | { kind: 'relay'; contentType: string; body: Readable; inputSeconds: Promise<number | undefined> };

export interface AudioProvider {
  readonly name: string;
  readonly wireFormat: AudioWireFormat;
  synthesize(req: SpeechRequest, upstreamModel: string, call: AudioCall): Promise<SpeechOutput>;
  transcribe(req: TranscriptionRequest, upstreamModel: string, call: AudioCall): Promise<TranscriptionOutput>;
}
