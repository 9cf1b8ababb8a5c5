/**
 * Heavy steps of different requests (an echo stream's next words, parsing a large JSON body) take
 * turns, one step per turn of the event loop. Each step yielding with its own setImmediate is not
 * enough: the immediates of every waiting step run in the same check phase, so 250 concurrent
 * streams held the loop for 250 steps at once (700 ms measured by bench/attack-suite.ts, finding
 * 5), and 250 bodies that arrived in one poll phase were parsed back to back (1.3 s, issue #30).
 * One queue, drained one entry per loop turn, lets timers and I/O (other requests, /healthz) run
 * between any two steps.
 */
const waiting: Array<() => void> = [];

export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(runTurn);
  });
}

function runTurn(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(runTurn);
}
