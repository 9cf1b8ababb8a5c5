// One emulator for a whole test file, as the emulator tests use it: started once, closed when the
// file ends, and its recorded requests and scripted replies cleared before each test.
import type t from 'tap';
import type { Emulator } from './emulator-types.ts';

export async function emulatorForFile<E extends Pick<Emulator, 'close' | 'reset'>>(
  tap: typeof t,
  start: () => Promise<E>,
): Promise<E> {
  const emu = await start();
  tap.teardown(() => emu.close());
  tap.beforeEach(() => emu.reset());
  return emu;
}
