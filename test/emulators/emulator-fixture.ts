// One emulator for a whole test file, as the emulator tests use it: started once, closed when the
// file ends, and its recorded requests and scripted replies cleared before each test.
import type { Test } from 'tap';
import type { Emulator, RecordedRequest } from './emulator-types.ts';

export async function emulatorForFile<E extends Pick<Emulator, 'close' | 'reset'>>(
  tap: Test,
  start: () => Promise<E>,
): Promise<E> {
  const emu = await start();
  tap.teardown(() => emu.close());
  tap.beforeEach(() => emu.reset());
  return emu;
}

/** The emulator recorded what an OpenAI SDK sent: a POST to `path`, with the bearer key `key`, and exactly `body`. */
export function assertOpenAIPost(t: Test, got: RecordedRequest, path: string, key: string, body: unknown): void {
  t.equal(got.method, 'POST');
  t.equal(got.path, path);
  t.equal(got.headers.authorization, `Bearer ${key}`);
  t.same(got.body, body);
}

/** Scripts one streamed `get_weather` call with id `id` whose `args` arrive split as `argChunks`. */
export function scriptWeatherCall(emu: Pick<Emulator, 'script'>, id: string, args: string, argChunks: string[]): void {
  emu.script({ kind: 'tool', name: 'get_weather', args, id, argChunks });
}

/** `err` is an instance of the SDK's rate-limit class `cls`, with status 429 and the scripted Retry-After. */
export function assertRateLimited<E extends { status?: number; headers?: { get(name: string): string | null } }>(
  t: Test,
  err: unknown,
  cls: new (...args: never[]) => E,
  retryAfter: string,
): E {
  t.type(err, cls);
  const e = err as E;
  t.equal(e.status, 429);
  t.equal(e.headers?.get('retry-after'), retryAfter);
  return e;
}
