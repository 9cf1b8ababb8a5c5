// `tune` client requests → IR, with every rule of the spec's "Music tasks" endpoint tables.
// Each failure names the field as the client spelled it. Unknown fields are refused rather than
// dropped (docs/open-world.md: nothing is silently dropped). Empty strings and nulls count as absent,
// because Suno-style clients send `"prompt": ""` for the fields of the modes they do not use.
import { invalid } from '../../src/ir/gateway-error.ts';
import {
  taskActions,
  type LyricsSubmission,
  type MusicMode,
  type MusicSubmission,
  type TaskAction,
} from '../../src/ir/music-task.ts';
import { isObject, type Json } from '../shared/narrow.ts';

/**
 * Length limits. The spec sets none for music tasks; these are generous bounds (above the music
 * services' own) that keep a request from tying up an upstream or the sandbox renderer.
 */
export const tuneLimits = {
  prompt: 5000,
  gpt_description_prompt: 3000,
  title: 200,
  tags: 1000,
  lyricsPrompt: 3000,
  notify_hook: 2048,
  fetchIds: 100,
  id: 200,
} as const;

const musicFields = [
  'prompt',
  'mv',
  'title',
  'tags',
  'make_instrumental',
  'task_id',
  'continue_at',
  'continue_clip_id',
  'gpt_description_prompt',
  'notify_hook',
];

function body(v: unknown): Json {
  if (!isObject(v)) throw invalid('body', 'body: expected a JSON object');
  return v;
}

function refuseUnknown(b: Json, allowed: readonly string[]): void {
  for (const k of Object.keys(b)) {
    if (!allowed.includes(k)) throw invalid(k, `${k}: unknown field; this endpoint accepts ${allowed.join(', ')}`);
  }
}

/** A string field; absent (undefined) when missing, null or empty. */
function text(b: Json, field: string, max: number): string | undefined {
  const v = b[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw invalid(field, `${field}: expected a string`);
  if (v.length > max) throw invalid(field, `${field}: at most ${max} characters (got ${v.length})`);
  const ctl = controlChar.exec(v);
  if (ctl)
    throw invalid(
      field,
      `${field}: control character U+${ctl[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not allowed (only tab, line feed and carriage return)`,
    );
  return v;
}

/**
 * C0 controls other than tab, LF and CR (and DEL): no title, lyric or tag needs them, a NUL cannot
 * be passed to a program's arguments (the sandbox renderer's ffmpeg metadata), and a music
 * service would refuse them too. Refused here, where the field can still be named.
 */
const controlChar = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

function required(b: Json, field: string, max: number, why: string): string {
  const v = text(b, field, max);
  if (v === undefined || v.trim() === '') throw invalid(field, `${field}: required ${why}`);
  return v;
}

/** `v` parsed as an absolute http(s) URL; anything else is bad input naming `field`. */
function httpUrl(v: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw invalid(field, `${field}: expected an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(field, `${field}: expected an http or https URL`);
  return url;
}

function hook(b: Json): string | undefined {
  const v = text(b, 'notify_hook', tuneLimits.notify_hook);
  if (v === undefined) return undefined;
  const url = httpUrl(v, 'notify_hook');
  if (url.username || url.password) throw invalid('notify_hook', 'notify_hook: credentials in the URL are not allowed');
  return v;
}

function continuation(b: Json): MusicMode {
  const why = 'for a continuation (task_id, continue_at and continue_clip_id)';
  const taskId = required(b, 'task_id', tuneLimits.id, why);
  const clipId = required(b, 'continue_clip_id', tuneLimits.id, why);
  const at = b.continue_at;
  if (at === undefined || at === null || at === '') throw invalid('continue_at', `continue_at: required ${why}`);
  if (typeof at !== 'number' || !Number.isFinite(at))
    throw invalid('continue_at', 'continue_at: expected a number of seconds');
  if (at < 0) throw invalid('continue_at', 'continue_at: must be 0 or more seconds');
  if (text(b, 'gpt_description_prompt', tuneLimits.gpt_description_prompt) !== undefined) {
    throw invalid(
      'gpt_description_prompt',
      'gpt_description_prompt: not allowed in a continuation (task_id, continue_at, continue_clip_id); send prompt, title and tags for the extension instead',
    );
  }
  return {
    type: 'continuation',
    taskId,
    clipId,
    continueAt: at,
    lyrics: text(b, 'prompt', tuneLimits.prompt),
    title: text(b, 'title', tuneLimits.title),
    tags: text(b, 'tags', tuneLimits.tags),
  };
}

function inspiration(b: Json, description: string): MusicMode {
  for (const f of ['prompt', 'title', 'tags'] as const) {
    if (b[f] !== undefined && b[f] !== null && b[f] !== '') {
      throw invalid(
        f,
        `${f}: not allowed with gpt_description_prompt (inspiration mode writes its own lyrics, title and tags); send either gpt_description_prompt alone or prompt, title and tags`,
      );
    }
  }
  return { type: 'inspiration', description };
}

function custom(b: Json, instrumental: boolean): MusicMode {
  const none = ['prompt', 'title', 'tags', 'gpt_description_prompt'].every(
    (f) => b[f] === undefined || b[f] === null || b[f] === '',
  );
  const why = none
    ? 'in custom mode; send gpt_description_prompt (inspiration mode), prompt, title and tags (custom mode), or task_id, continue_at and continue_clip_id (continuation)'
    : 'in custom mode (prompt, title and tags)';
  // An instrumental has no lyrics, so custom mode needs no prompt then.
  const lyrics = instrumental
    ? (text(b, 'prompt', tuneLimits.prompt) ?? '')
    : required(b, 'prompt', tuneLimits.prompt, why);
  const title = required(b, 'title', tuneLimits.title, why);
  const tags = required(b, 'tags', tuneLimits.tags, why);
  return { type: 'custom', lyrics, title, tags };
}

/** POST /tune/submit/music. The `mv` value is checked against the configured models by the caller. */
export function decodeMusicSubmission(raw: unknown): MusicSubmission {
  const b = body(raw);
  refuseUnknown(b, musicFields);
  const mv = text(b, 'mv', tuneLimits.id);
  const inst = b.make_instrumental;
  if (inst !== undefined && inst !== null && typeof inst !== 'boolean')
    throw invalid('make_instrumental', 'make_instrumental: expected a boolean');
  const instrumental = inst === true;
  const notifyHook = hook(b);
  const isContinuation = ['task_id', 'continue_at', 'continue_clip_id'].some(
    (f) => b[f] !== undefined && b[f] !== null && b[f] !== '',
  );
  const description = text(b, 'gpt_description_prompt', tuneLimits.gpt_description_prompt);
  let mode: MusicMode;
  if (isContinuation) mode = continuation(b);
  else if (description !== undefined && description.trim() !== '') mode = inspiration(b, description);
  else mode = custom(b, instrumental);
  return { kind: 'music', mode, model: mv, instrumental, notifyHook };
}

/** POST /tune/submit/lyrics. */
export function decodeLyricsSubmission(raw: unknown): LyricsSubmission {
  const b = body(raw);
  refuseUnknown(b, ['prompt', 'notify_hook']);
  const prompt = required(b, 'prompt', tuneLimits.lyricsPrompt, '(the theme or keywords of the lyrics)');
  return { kind: 'lyrics', prompt, notifyHook: hook(b) };
}

export type FetchQuery = { ids: string[]; action?: TaskAction };

/** POST /tune/fetch. */
export function decodeFetchQuery(raw: unknown): FetchQuery {
  const b = body(raw);
  refuseUnknown(b, ['ids', 'action']);
  const ids = b.ids;
  if (ids === undefined || ids === null) throw invalid('ids', 'ids: required (an array of task ids)');
  if (!Array.isArray(ids)) throw invalid('ids', 'ids: expected an array of task id strings');
  if (ids.length > tuneLimits.fetchIds)
    throw invalid('ids', `ids: at most ${tuneLimits.fetchIds} task ids per request (got ${ids.length})`);
  ids.forEach((id, i) => {
    if (typeof id !== 'string') throw invalid(`ids.${i}`, `ids.${i}: expected a task id string`);
  });
  const action = b.action;
  if (action === undefined || action === null || action === '') return { ids: ids as string[] };
  if (typeof action !== 'string' || !(taskActions as readonly string[]).includes(action)) {
    throw invalid('action', `action: must be one of ${taskActions.map((a) => `'${a}'`).join(', ')}`);
  }
  return { ids: ids as string[], action: action as TaskAction };
}

/** POST /tune/uploads/audio-url: checked for shape only, then answered as unavailable. */
export function decodeAudioUpload(raw: unknown): { url: string } {
  const b = body(raw);
  refuseUnknown(b, ['url']);
  const url = required(b, 'url', tuneLimits.notify_hook, '(the address of the audio file)');
  httpUrl(url, 'url');
  return { url };
}

/** POST /tune/submit/concat: checked for shape only, then answered as unavailable. */
export function decodeConcat(raw: unknown): { clipId: string; isInfill: boolean } {
  const b = body(raw);
  refuseUnknown(b, ['clip_id', 'is_infill']);
  const clipId = required(b, 'clip_id', tuneLimits.id, '(the clip to concatenate)');
  const infill = b.is_infill;
  if (infill !== undefined && infill !== null && typeof infill !== 'boolean')
    throw invalid('is_infill', 'is_infill: expected a boolean');
  return { clipId, isInfill: infill === true };
}
