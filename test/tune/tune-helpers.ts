// Shared pieces of the family A end-to-end tests: a gateway config with a `tune` upstream (or the
// sandbox), envelope calls, and bounded waits for a task to reach a state (never timing asserts).
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { startGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/start-gateway.ts';
import type { Test } from 'tap';
import { startTuneUpstream, type TuneUpstream } from '../emulators/tune-upstream.ts';
import { waitFor } from '../helpers/wait-for.ts';

export type Envelope = { code: string; message: string; data: unknown };
export type WireTask = {
  task_id: string;
  notify_hook: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  data: Array<Record<string, unknown> & { id: string; metadata: Record<string, unknown> }> | Record<string, unknown>;
};

/** Fast intervals so a whole lifecycle takes well under a second. */
export const fastTune = {
  poll_interval_ms: 40,
  sandbox_delay_ms: 300,
  task_deadline_s: 60,
  callback: { secret: 'whsec-test-secret', backoff_ms: 50, max_attempts: 5 },
};

/** Config with the emulated upstream as provider `up` serving both music models. */
export function upstreamConfig(up: TuneUpstream, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { tune, providers, models, ...rest } = extra as {
    tune?: Record<string, unknown>;
    providers?: Record<string, unknown>;
    models?: Record<string, unknown>;
  };
  return testConfig({
    providers: { up: { type: 'tune', base_url: up.url, api_key: up.apiKey }, ...providers },
    models: {
      'tune-v3-0': { routes: [{ provider: 'up', model: 'chirp-v3-0' }] },
      'tune-v3-5': { routes: [{ provider: 'up', model: 'chirp-v3-5' }] },
      ...models,
    },
    tune: { ...fastTune, ...tune },
    ...rest,
  });
}

/** An emulated `tune` upstream and an in-process gateway on upstreamConfig(up, extra), both stopped at teardown. */
export async function tuneGateway(
  t: Test,
  extra: Record<string, unknown> = {},
): Promise<{ up: TuneUpstream; gw: RunningGateway }> {
  const up = await startTuneUpstream();
  const gw = await startInProcessGateway(upstreamConfig(up, extra));
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  return { up, gw };
}

export async function call(
  gw: RunningGateway,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  key: string | null = TEST_KEY,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Envelope; headers: Headers }> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Envelope, headers: res.headers };
}

/** Submits and returns the task id, failing loudly with the envelope if the gateway refused. */
export async function submit(
  gw: RunningGateway,
  path: '/tune/submit/music' | '/tune/submit/lyrics',
  body: unknown,
  key: string = TEST_KEY,
): Promise<string> {
  const r = await call(gw, 'POST', path, body, key);
  if (r.status !== 200 || r.body.code !== 'success' || typeof r.body.data !== 'string')
    throw new Error(`submission refused: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

export async function getTask(gw: RunningGateway, id: string, key: string = TEST_KEY): Promise<WireTask> {
  const r = await call(gw, 'GET', `/tune/fetch/${id}`, undefined, key);
  if (r.status !== 200) throw new Error(`GET task ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as WireTask;
}

/** Polls GET /tune/fetch/{id} until the task leaves IN_PROGRESS. */
export function untilFinished(gw: RunningGateway, id: string, key: string = TEST_KEY): Promise<WireTask> {
  return waitFor(`task ${id} to finish`, async () => {
    const t = await getTask(gw, id, key);
    return t.status === 'IN_PROGRESS' ? undefined : t;
  });
}

export async function metric(gw: RunningGateway, line: RegExp): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const m = text.split('\n').find((l) => line.test(l));
  return m ? Number(m.split(' ').pop()) : 0;
}

export { startGateway, startInProcessGateway, testConfig, waitFor };
