// The wire fuzzer of the Responses WebSocket (issue #30): a running gateway gets, one socket per
// mutant, structure-aware mutants of every client event kind and every frame kind
// (test/fuzz/mutate-ws.ts). The property: the process never exits and /healthz keeps answering.
// A short pass by default (FUZZ_RUNS, 200); `npm run fuzz` runs a long one.
import fc from 'fast-check';
import t from 'tap';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { closePayload, frame, openFrames } from '../responses-ws/raw-frames.ts';
import { fuzzParams, fuzzRuns } from './mutate-json.ts';
import { sessions, type Session } from './mutate-ws.ts';

/** How often (in mutants) /healthz is asked while the pass runs; always after the last. */
const healthEvery = 25;

t.test('no WebSocket message or frame stops the gateway', async (t) => {
  const gw = await startGateway(
    testConfig({
      log: { level: 'warn' },
      limits: { max_body_bytes: 512 * 1024 },
      responses_websocket: {
        max_message_bytes: 256 * 1024,
        max_queued_per_lane: 4,
        max_queued_responses: 8,
        max_total_bytes: 64 * 1024 * 1024,
      },
    }),
  );
  t.teardown(() => gw.stop());
  const alive = (): boolean => gw.process.exitCode === null && gw.process.signalCode === null;
  const healthy = async (): Promise<boolean> => {
    const res = await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    return res?.status === 200;
  };
  const codes = new Map<number, number>();
  let runs = 0;

  /** Writes a session on a socket of its own, then closes (or drops) it; the server's close code is tallied. */
  const play = async (s: Session): Promise<void> => {
    const sock = await openFrames(gw.port, TEST_KEY);
    const end = s.cutAt ?? s.bytes.length;
    let at = 0;
    for (let i = 0; at < end; i++) {
      const n = Math.min(end - at, s.pieces[i % Math.max(1, s.pieces.length)] ?? end);
      sock.send(s.bytes.subarray(at, at + n));
      at += n;
    }
    // A session cut short vanishes at once; a whole one closes as a client does, and the server's
    // close is awaited a little (a frame whose length header lies leaves it waiting for more).
    if (s.cutAt !== undefined) {
      sock.socket.destroy();
      codes.set(-1, (codes.get(-1) ?? 0) + 1);
      return;
    }
    sock.send(frame({ opcode: 8, payload: closePayload(1000) }));
    const code = await Promise.race([sock.closed, new Promise<number>((r) => setTimeout(() => r(0), 150))]);
    codes.set(code, (codes.get(code) ?? 0) + 1);
    sock.socket.destroy();
  };

  await fc.assert(
    fc.asyncProperty(sessions, async (s) => {
      runs++;
      await play(s);
      if (!alive()) return false;
      return runs % healthEvery !== 0 || (await healthy());
    }),
    fuzzParams(),
  );
  t.ok(alive(), `the process is alive after ${runs} mutants`);
  t.ok(await healthy(), '/healthz answers');
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  const served = /^polygate_responses_websocket_responses_total (\S+)/m.exec(metrics)?.[1];
  t.comment(
    `${runs} mutants, ${served} reached the pipeline (FUZZ_RUNS ${fuzzRuns}); server close codes: ${[...codes]
      .sort((a, b) => a[0] - b[0])
      .map(([c, n]) => `${c === -1 ? 'cut short' : c === 0 ? 'still open after 150 ms' : c}: ${n}`)
      .join(', ')}`,
  );
  // Errors polygate logged about itself (level 50+): none expected; their messages, for the record.
  const errors = gw
    .output()
    .split('\n')
    .filter((l) => /"level":(5|6)\d/.test(l))
    .map((l) => /"msg":"([^"]*)"/.exec(l)?.[1] ?? l.slice(0, 200));
  t.same([...new Set(errors)], [], 'polygate logged no error of its own');
  t.notOk(/uncaught exception|unhandled promise rejection/.test(gw.output()), 'nothing went unhandled');
});
