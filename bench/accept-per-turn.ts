// `node bench/accept-per-turn.ts`: connections a Node server accepts per turn of a busy event loop,
// with 1 accept queue and with several (SO_REUSEPORT, as src/app/accept-queues.ts listens; issue #28).
// Each turn is made 20 ms long (the work of a thousand streams' chunks); a client opens 400
// connections at once. A count, not a timing: it does not depend on how busy the machine is.
import { spawn } from 'node:child_process';
import net from 'node:net';

const TURN_MS = 20;
const CONNECTIONS = 400;

if (process.argv[2] === 'client') {
  const port = Number(process.argv[3]);
  const socks: net.Socket[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    socks.push(s);
  }
  setTimeout(() => process.exit(0), 60_000);
} else {
  for (const queues of [1, 8, 1, 8]) {
    const perTurn: number[] = [];
    let accepted = 0;
    let turn = 0;
    const sockets: net.Socket[] = [];
    const onConn = (s: net.Socket): void => {
      accepted++;
      perTurn[turn] = (perTurn[turn] ?? 0) + 1;
      sockets.push(s);
    };
    const servers = [net.createServer(onConn)];
    await new Promise<void>((ok) =>
      servers[0].listen({ port: 0, host: '127.0.0.1', backlog: 4096, reusePort: queues > 1 }, ok),
    );
    const port = (servers[0].address() as net.AddressInfo).port;
    for (let i = 1; i < queues; i++) {
      const q = net.createServer(onConn);
      await new Promise<void>((ok) => q.listen({ port, host: '127.0.0.1', backlog: 4096, reusePort: true }, ok));
      servers.push(q);
    }
    const client = spawn(process.execPath, [import.meta.filename, 'client', String(port)], { stdio: 'ignore' });
    // Busy turns until every connection is in, or 400 turns.
    await new Promise<void>((done) => {
      const busy = (): void => {
        turn++;
        const end = performance.now() + TURN_MS;
        while (performance.now() < end);
        if (accepted >= CONNECTIONS || turn >= 400) return done();
        setImmediate(busy);
      };
      setTimeout(busy, 100);
    });
    client.kill();
    const busyTurns = perTurn.filter((n, i) => i > 0 && n !== undefined);
    process.stdout.write(
      `${queues} accept queue(s): ${accepted}/${CONNECTIONS} accepted in ${turn} busy turns of ${TURN_MS} ms; ` +
        `at most ${Math.max(...busyTurns)} in one turn\n`,
    );
    for (const s of sockets) s.destroy();
    for (const s of servers) s.close();
  }
}
