// The music / lyrics task in polygate's own words (docs/architecture.md). The `tune` format's wire names
// (snake_case, `<n>%` progress, epoch-second strings) live only in adapters/tune; upstream
// providers and the task runner speak these types.

export type TaskAction = 'MUSIC' | 'LYRICS';
/** The three task states of the spec ("States and transitions"); upstream variants map onto them. */
export type TaskStatus = 'IN_PROGRESS' | 'SUCCESS' | 'FAIL';

export const taskActions: readonly TaskAction[] = ['MUSIC', 'LYRICS'];

/** How a music submission says what to make (spec, "Modes"). */
export type MusicMode =
  /** The service writes lyrics, title and tags from a description. */
  | { type: 'inspiration'; description: string }
  | { type: 'custom'; lyrics: string; title: string; tags: string }
  /**
   * Extends an existing clip from `continueAt` seconds. `taskId` is the id the caller knows
   * (polygate's own on the client side, the upstream's once re-encoded for the upstream).
   * Lyrics, title and tags of the extension are optional.
   */
  | {
      type: 'continuation';
      taskId: string;
      clipId: string;
      continueAt: number;
      lyrics?: string;
      title?: string;
      tags?: string;
    };

export type MusicSubmission = {
  kind: 'music';
  mode: MusicMode;
  /** The `mv` the caller sent, if any; the gateway applies its default. */
  model?: string;
  instrumental: boolean;
  notifyHook?: string;
};

export type LyricsSubmission = { kind: 'lyrics'; prompt: string; notifyHook?: string };

export type TaskSubmission = MusicSubmission | LyricsSubmission;

export type SongMetadata = {
  tags: string;
  /** The lyrics the song was sung with. */
  prompt: string;
  duration: number | null;
  errorType: string | null;
  errorMessage: string | null;
  audioPromptId: string | null;
  gptDescriptionPrompt: string;
};

export type Song = {
  id: string;
  title: string;
  /** The upstream's own word (`streaming`, `complete`, …): the spec leaves the value set open. */
  status: string;
  metadata: SongMetadata;
  /**
   * Absolute URL, or a path starting with `/` for audio polygate serves itself (the sandbox);
   * encoders for clients make such paths absolute against the address the client used.
   */
  audioUrl: string;
  imageUrl: string;
  imageLargeUrl: string;
  videoUrl: string;
  modelName: string;
  majorModelVersion: string;
};

export type Lyrics = { id: string; text: string; title: string; status: string };

/** What a task produced so far: songs for MUSIC, one lyrics object (or none yet) for LYRICS. */
export type TaskOutput = { kind: 'songs'; songs: Song[] } | { kind: 'lyrics'; lyrics: Lyrics | null };

export type MusicTask = {
  id: string;
  action: TaskAction;
  status: TaskStatus;
  /** Empty when none. */
  failReason: string;
  /** Epoch seconds. */
  submitTime: number;
  startTime: number;
  /** 0 while unfinished. */
  finishTime: number;
  /** 0 to 100. */
  progress: number;
  /** Empty when none. */
  notifyHook: string;
  output: TaskOutput;
};

/** A task as an upstream reports it, before polygate puts its own id and hook on it. */
export type UpstreamTaskView = Omit<MusicTask, 'notifyHook'> & {
  /** The upstream's status word as sent, for logs (e.g. `NOT_START`). */
  rawStatus: string;
};

export const isTerminal = (s: TaskStatus): boolean => s !== 'IN_PROGRESS';

export function emptyOutput(action: TaskAction): TaskOutput {
  switch (action) {
    case 'MUSIC':
      return { kind: 'songs', songs: [] };
    case 'LYRICS':
      return { kind: 'lyrics', lyrics: null };
    default: {
      const never: never = action;
      return never;
    }
  }
}
