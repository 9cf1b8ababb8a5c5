// A stream decoder's batch ends at its first error: nothing follows an error, even where the rest
// of the upstream chunk still produced events.
import type { StreamEvent } from '../../src/ir/stream-event.ts';

export function upToError(events: StreamEvent[]): StreamEvent[] {
  const err = events.findIndex((e) => e.type === 'error');
  return err >= 0 ? events.slice(0, err + 1) : events;
}
