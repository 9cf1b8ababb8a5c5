// The floor for any Node gateway: a bare pass-through hop that parses nothing, only relays the
// request and response bytes over a keep-alive pool. Measured beside polygate so the table shows
// how much of polygate's overhead is Node's HTTP stack and how much is polygate.
//
//   node bench/floor-proxy.ts --port P --target http://127.0.0.1:MOCKPORT
import { Agent, createServer, request } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { port: { type: 'string', default: process.env.PORT ?? '0' }, target: { type: 'string' } },
});
if (!values.target) throw new Error('--target is required');
const target = new URL(values.target);
const agent = new Agent({ keepAlive: true, maxSockets: 2048 });

const server = createServer({ keepAliveTimeout: 120_000, requestTimeout: 0 }, (req, res) => {
  if (req.method === 'GET' && req.url === '/') return void res.end('floor');
  const up = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
    (ures) => {
      res.writeHead(ures.statusCode ?? 502, ures.headers);
      ures.pipe(res);
    },
  );
  up.on('error', () => res.destroy());
  req.pipe(up);
});
server.listen(Number(values.port), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
