// CPU per request of a relayed JSON answer written to its client two ways (issue #28, bench/RESULTS.md
// "Session 13: relay CPU"): `chunked`, what the relay does (writeHead, then end(buffer) of the held
// answer: chunked framing, six pieces in one writev), and `length` (the same head with a
// content-length: head and body, two pieces). A bare node:http server per way on the gateway core
// (a header set before the head, as polygate's app does, so writeHead takes the same path), all
// loaded at once by autocannon each round; each server's CPU per request, and the second ÷ the
// first per round. ANSWER_FRAMING_WAYS=chunked,chunked is the A/A pair (the second process reads
// about 1 % above the first whatever it runs).
//   node bench/answer-framing-micro.ts   ANSWER_FRAMING_WAYS (chunked,length)  ANSWER_FRAMING_ROUNDS (8)
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, way: { type: 'string' } } });
/** The bench's Messages answer as the relay holds it: one Buffer. */
const answer = Buffer.from(
  JSON.stringify({
    id: 'msg_01xTBF3Yg8UBrDEBoYBwrJsM',
    type: 'message',
    role: 'assistant',
    model: 'claude-upstream',
    content: [{ type: 'text', text: 'hi there, this is the answer' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
  }),
);

if (values.way) serve(values.way, Number(values.port));
else await measure();

function serve(way: string, port: number): void {
  createServer((req, res) => {
    res.setHeader('x-request-id', 'b0736e3e-64d1-43fd-882d-8da8fcdec70c');
    req.resume();
    req.on('end', () =>
      // The relay writes its held answer after the record's promise: a later turn.
      setImmediate(() => {
        const headers: Record<string, string> = {
          'x-polygate-route': 'anth/claude-upstream',
          'x-request-id': 'b0736e3e-64d1-43fd-882d-8da8fcdec70c',
          'content-type': 'application/json',
          'request-id': 'req_01B1PsYZjEsT3J0DYbr0EY3T',
          date: 'Fri, 27 Nov 2026 15:34:46 GMT',
        };
        if (way === 'length') headers['content-length'] = String(answer.length);
        res.writeHead(200, headers);
        res.end(answer);
      }),
    );
  }).listen(port, '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}

async function measure(): Promise<void> {
  const { runAutocannon } = await import('./load-autocannon.ts');
  const { cpuSecondsPrecise, GATEWAY_CORE, LOAD_CORE, pinSelf, repoRoot, startNodeProcess } =
    await import('./processes.ts');
  const ways = (process.env.ANSWER_FRAMING_WAYS ?? 'chunked,length').split(',');
  const rounds = Number(process.env.ANSWER_FRAMING_ROUNDS ?? 8);
  pinSelf(LOAD_CORE);
  const servers = await Promise.all(
    ways.map((way) =>
      startNodeProcess(way, join(repoRoot, 'bench/answer-framing-micro.ts'), {
        core: GATEWAY_CORE,
        args: (port) => ['--port', String(port), '--way', way],
      }),
    ),
  );
  const request = { method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };
  const us: number[][] = ways.map(() => []);
  try {
    await Promise.all(servers.map((s) => runAutocannon(s.url, request as never, 16, 1)));
    for (let r = 0; r < rounds; r++) {
      const c0 = servers.map((s) => cpuSecondsPrecise(s.pid));
      const res = await Promise.all(servers.map((s) => runAutocannon(s.url, request as never, 16, 2)));
      servers.forEach((s, i) => us[i].push(((cpuSecondsPrecise(s.pid) - c0[i]) * 1e6) / res[i].count));
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  ways.forEach((w, i) => process.stdout.write(`${w}: ${us[i].map((x) => x.toFixed(1)).join(' ')} µs CPU / request\n`));
  const ratios = us[1].map((x, i) => x / us[0][i]);
  process.stdout.write(
    `${ways[1]} ÷ ${ways[0]} per round: ${ratios.map((x) => x.toFixed(3)).join(' ')} (${ratios.filter((x) => x < 1).length} of ${rounds} lower)\n`,
  );
}
