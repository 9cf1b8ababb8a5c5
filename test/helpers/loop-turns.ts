// Turns of the event loop, seen from a test: `fn` runs once in each turn's check phase (setImmediate)
// until the returned `stop` is called. Tests count turns instead of milliseconds to show that work is
// spread over the loop, whatever the machine's speed.
export function onEveryLoopTurn(fn: () => void): () => void {
  let running = true;
  const tick = (): void => {
    if (!running) return;
    fn();
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    running = false;
  };
}
