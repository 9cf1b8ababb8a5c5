// Text to speech in polygate's own terms. The voice and format names are the ones the spec's
// the `openai-audio` format fixes (seeds, "Speech body"); adapters translate wire fields into these.

export const speechVoices = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'] as const;
export type SpeechVoice = (typeof speechVoices)[number];

export const speechFormats = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export type SpeechFormat = (typeof speechFormats)[number];

/** `pcm` is headerless: 16-bit signed little-endian mono samples at 24 kHz. */
export const pcmLayout = { sampleRate: 24_000, channels: 1, bytesPerSample: 2 } as const;

export const speedRange = { min: 0.25, max: 4 } as const;
export const maxSpeechInputChars = 4096;

export type SpeechRequest = {
  /** The client-facing model name. */
  model: string;
  input: string;
  /**
   * One of `speechVoices`, or a voice newer than polygate (OpenAI adds voices): passed on to an
   * upstream that names voices, spoken with the nearest a local engine has (issue #29).
   */
  voice: string;
  format: SpeechFormat;
  /** 1 is natural pace; 0.25 to 4; undefined when the client left the default (1). */
  speed?: number;
  /** Free-text style direction; a tuning knob engines without it may drop (with a warning). */
  instructions?: string;
  /** `audio` (bytes) or `sse` (events); undefined when the client did not ask. */
  streamFormat?: 'audio' | 'sse';
  /** Fields polygate does not model, relayed verbatim to same-format upstreams only. */
  extra: Record<string, unknown>;
};

/** Synthesized audio as produced by a provider. */
export type SpeechAudio = {
  contentType: string;
  /** Seconds of audio, where the provider knows it (metrics). */
  durationSeconds?: number;
};
