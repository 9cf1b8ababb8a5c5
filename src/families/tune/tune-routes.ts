// The handlers of the `tune` format's routes (adapters/tune/index.ts; README, "Families served"). Every answer is the
// envelope; errors are thrown as GatewayError and encoded by the app's request scope.
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import type Koa from 'koa';
import type { Context } from 'koa';
import {
  decodeAudioUpload,
  decodeConcat,
  decodeFetchQuery,
  decodeLyricsSubmission,
  decodeMusicSubmission,
  encodeTask,
  endpointUnavailable,
  successEnvelope,
} from '../../../adapters/tune/index.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { RequestState } from '../../services/runtime/request-state.ts';
import { fetchTasks, getTask, submitLyrics, submitMusic, type Submitted } from './task-service.ts';
import { anySandbox, sandboxAudioDir } from './tune-providers.ts';
import { meter } from '../../services/usage/meter.ts';
import { publicOrigin } from './task-runner.ts';
import { routeParam } from '../../infra/http/route-params.ts';
import type { GatewayContext } from '../../services/runtime/gateway-context.ts';

const st = (ctx: GatewayContext): RequestState => ctx.state;
const storeOf = (ctx: Context) => st(ctx).services.store;

/**
 * The base of absolute URLs polygate hands out (a task's `audio_url`): `tune.public_base_url`,
 * else the listen address, as callbacks have it. Never the client's Host header: a forged Host
 * made polygate hand out URLs on another host (issue #30, finding 9).
 */
const publicBase = (ctx: Context): string => publicOrigin(st(ctx).runtime, ctx.req.socket.localPort ?? 0);

function requireJson(ctx: Context): void {
  if (!ctx.is('application/json'))
    throw new GatewayError('invalid-request', 'content-type must be application/json', {
      status: 415,
      param: 'content-type',
    });
}

function answered(ctx: Context, s: Submitted, model: string): void {
  const state = st(ctx);
  state.model = model;
  meter(state, { tasks: 1 });
  if (s.provider) {
    const type = state.runtime.config.providers[s.provider]?.type ?? 'tune';
    state.path = { provider: s.provider, upstream_format: type, mode: 'translate', upstreamModel: s.upstreamModel };
  }
  ctx.body = successEnvelope(s.taskId);
}

/** Clip ids polygate makes are random UUIDs; anything else is not one of its files. */
const audioName = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.mp3$/;

/**
 * GET /tune/audio/{clip_id}.mp3 serves sandbox audio (without a key: adapters/tune/index.ts).
 * Single byte ranges are honoured so players can seek.
 */
async function serveAudio(ctx: Context): Promise<void> {
  const m = audioName.exec(routeParam(ctx, 'file'));
  const file = m
    ? ((await anySandbox(storeOf(ctx))?.audioFile(m[1])) ?? join(sandboxAudioDir(st(ctx).runtime), `${m[1]}.mp3`))
    : undefined;
  let size: number;
  try {
    size = file ? statSync(file).size : -1;
  } catch {
    size = -1;
  }
  if (!file || size < 0) throw new GatewayError('not-found', 'no such audio file');
  ctx.set('accept-ranges', 'bytes');
  ctx.set('cache-control', 'public, max-age=31536000, immutable');
  ctx.type = 'audio/mpeg';
  const range = /^bytes=(\d*)-(\d*)$/.exec(ctx.get('range'));
  if (range && (range[1] || range[2])) {
    const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
    const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start > end || start >= size) {
      ctx.status = 416;
      ctx.set('content-range', `bytes */${size}`);
      ctx.body = '';
      return;
    }
    ctx.status = 206;
    ctx.set('content-range', `bytes ${start}-${end}/${size}`);
    ctx.length = end - start + 1;
    ctx.body = createReadStream(file, { start, end });
    return;
  }
  ctx.length = size;
  ctx.body = createReadStream(file);
}

const submission = (ctx: Context) => {
  requireJson(ctx);
  const state = st(ctx);
  return {
    state,
    services: { runtime: state.runtime, store: storeOf(ctx), key: state.key, breakers: state.services.breakers },
  };
};

/** A request the real service validates but polygate cannot serve: validated, then refused naming the endpoint. */
const unavailable = (decode: (body: unknown) => unknown, endpoint: string) => (): Koa.Middleware => async (ctx) => {
  requireJson(ctx);
  decode(ctx.request.body);
  throw endpointUnavailable(endpoint);
};

/** The handlers of the `tune` format's route kinds (adapters/tune/index.ts). */
export const tuneRouteHandlers = {
  'tune-music': (): Koa.Middleware => async (ctx) => {
    const { state, services } = submission(ctx);
    const sub = decodeMusicSubmission(ctx.request.body);
    answered(ctx, await submitMusic(services, sub), sub.model ?? state.runtime.config.tune.default_model);
  },
  'tune-lyrics': (): Koa.Middleware => async (ctx) => {
    const { state, services } = submission(ctx);
    const s = await submitLyrics(services, decodeLyricsSubmission(ctx.request.body));
    answered(ctx, s, state.runtime.config.tune.lyrics_model ?? state.runtime.config.tune.default_model);
  },
  'tune-upload-url': unavailable(decodeAudioUpload, 'POST /tune/uploads/audio-url'),
  'tune-concat': unavailable(decodeConcat, 'POST /tune/submit/concat'),
  'tune-fetch': (): Koa.Middleware => async (ctx) => {
    requireJson(ctx);
    const q = decodeFetchQuery(ctx.request.body);
    const tasks = await fetchTasks(storeOf(ctx), st(ctx).key.workspace, q.ids, q.action);
    ctx.body = successEnvelope(tasks.map((t) => encodeTask(t, { origin: publicBase(ctx) })));
  },
  'tune-task': (): Koa.Middleware => async (ctx) => {
    const id = routeParam(ctx, 'task_id');
    const task = await getTask(storeOf(ctx), st(ctx).key.workspace, id);
    ctx.body = successEnvelope(encodeTask(task, { origin: publicBase(ctx) }));
  },
  'tune-audio': (): Koa.Middleware => serveAudio,
};
