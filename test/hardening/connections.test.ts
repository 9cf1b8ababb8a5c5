// Finding 3 of the hardening issue: clients that trickle a body. An unauthenticated request
// declaring a large body gets its 401 and, a short linger later, its connection closed (before: the 401 came but
// the socket stayed open while Node read the body, until the process ran out of descriptors); an
// authenticated one gets a 408 in its family's shape once listen.body_timeout_ms has passed
// (before: held as long as the client kept trickling). Streams answering a request whose body has
// arrived are not cut by that timeout. The server keeps answering /healthz throughout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { node24, repoRoot, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';
import { waitFor } from '../helpers/wait-for.ts';

const fault = await startFaultUpstream();
const gw = await startInProcessGateway(
  testConfig({
    listen: { host: '127.0.0.1', port: 0, headers_timeout_ms: 1000, body_timeout_ms: 1000 },
    providers: { up: { type: 'anthropic', base_url: fault.anthropicUrl, api_key: 'sk-up' } },
    models: { relayed: { routes: [{ provider: 'up', model: 'up-1' }] } },
  }),
);
const sockets = new Set<Socket>();
t.teardown(async () => {
  for (const s of sockets) s.destroy();
  await gw.stop();
  await fault.close();
});

type Trickler = { response: () => string; closed: () => boolean };

/** A raw client that sends headers declaring a 1 MB body, then one byte every 100 ms. */
function trickle(headers: Record<string, string>): Trickler {
  const s = connect(gw.port, '127.0.0.1');
  sockets.add(s);
  let got = '';
  let closed = false;
  s.on('data', (b) => (got += b.toString('latin1')));
  s.on('error', () => {});
  s.on('close', () => {
    closed = true;
    clearInterval(timer);
  });
  const head = Object.entries({
    host: '127.0.0.1',
    'content-type': 'application/json',
    'content-length': '1000000',
    ...headers,
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  s.write(`POST /v1/messages HTTP/1.1\r\n${head}\r\n{`);
  const timer = setInterval(() => {
    if (!s.destroyed && s.writable) s.write(' ');
  }, 100);
  return { response: () => got, closed: () => closed };
}

async function healthy(): Promise<boolean> {
  const r = await fetch(`${gw.url}/healthz`);
  return r.status === 200 && (await r.json()).status === 'ok';
}

/** Waits (up to 15 s) until the gateway has closed every one of `clients`. */
const allClosed = (clients: Array<{ closed(): boolean }>, what: string): Promise<true> =>
  waitFor(what, async () => (clients.every((c) => c.closed()) ? true : undefined), 15_000);

t.test('unauthenticated tricklers get their 401 and their connection closed', async (t) => {
  const clients = Array.from({ length: 50 }, () =>
    trickle({ 'x-api-key': 'sk-wrong', 'anthropic-version': '2023-06-01' }),
  );
  t.ok(await healthy(), '/healthz answers while 50 clients trickle');
  await allClosed(clients, 'every trickling socket closed');
  for (const c of clients) {
    t.match(c.response(), /^HTTP\/1\.1 401 /, 'answered 401');
    t.match(c.response(), /"type":"authentication_error"/, "in the Messages family's shape");
  }
  t.ok(await healthy(), '/healthz still answers');
});

t.test('authenticated tricklers get a 408 in their family shape when the body deadline passes', async (t) => {
  const clients = Array.from({ length: 10 }, () =>
    trickle({ 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' }),
  );
  await allClosed(clients, 'every trickling socket answered and closed');
  for (const c of clients) {
    t.match(c.response(), /^HTTP\/1\.1 408 /, 'answered 408');
    const body = JSON.parse(c.response().slice(c.response().indexOf('\r\n\r\n') + 4));
    t.equal(body.type, 'error');
    t.match(body.error.message, /listen\.body_timeout_ms/, 'the message names the setting');
  }
  t.ok(await healthy(), '/healthz still answers');
});

t.test('a client that never finishes its headers is answered 408 and closed', async (t) => {
  const s = connect(gw.port, '127.0.0.1');
  sockets.add(s);
  let got = '';
  s.on('data', (b) => (got += b.toString('latin1')));
  s.on('error', () => {});
  const closed = new Promise<void>((ok) => s.on('close', () => ok()));
  s.write('POST /v1/messages HTTP/1.1\r\nhost: x\r\n');
  await closed;
  t.match(got, /^HTTP\/1\.1 408 /);
});

t.test('a stream that outlasts the receive timeouts is not cut', async (t) => {
  fault.script({ kind: 'ok', text: 'alpha beta gamma delta', pauseAfterChunks: 2 });
  const res = await postMessages(gw.url, { model: 'relayed', max_tokens: 32, stream: true, messages: userSays('hi') });
  t.equal(res.status, 200);
  // Past headers + body timeouts and Node's own request timer (their sum plus 5 s): the stream
  // is answering a request that has fully arrived, so none of them applies.
  await new Promise((r) => setTimeout(r, 8_000));
  fault.resume();
  const text = await res.text();
  t.match(text, /event: message_stop/, 'the stream ran to its end');
  t.match(text, /delta/, 'with every word');
});

t.test('a spawn that fails for want of descriptors rejects its call and leaves the process alive', async (t) => {
  // A process with a small descriptor limit uses them all up, then renders a sandbox song (as a
  // music task does) and runs a speech tool: both must fail as calls. Before, the spawn's EMFILE
  // was an 'error' event nobody listened to, which ended the process.
  const dir = mkdtempSync(join(tmpdir(), 'polygate-emfile-'));
  const script = join(dir, 'exhaust.mjs');
  writeFileSync(
    script,
    `import { openSync } from 'node:fs';
import { renderSong } from ${JSON.stringify(join(repoRoot, 'src/families/tune/sandbox-renderer.ts'))};
import { runTool } from ${JSON.stringify(join(repoRoot, 'src/families/speech/run-tool.ts'))};
const held = [];
try { for (;;) held.push(openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; }
// Leave two descriptors: enough for the renderer's temporary directory, not for the child's pipes.
const { closeSync } = await import('node:fs');
closeSync(held.pop()); closeSync(held.pop());
const outcomes = [];
for (const attempt of [
  () => renderSong(${JSON.stringify(join(dir, 'song.mp3'))}, { lyrics: 'la la', title: 'T', instrumental: false, variant: 0 }),
  () => runTool('espeak-ng', ['--version'], { timeoutMs: 5000 }),
]) {
  try { await attempt(); outcomes.push('ok'); } catch (e) { outcomes.push(String(e.message)); }
}
await new Promise((r) => setTimeout(r, 200));
console.log('SURVIVED ' + JSON.stringify(outcomes));
`,
  );
  const r = spawnSync('bash', ['-c', `ulimit -n 64 && exec "$0" "$1"`, node24, script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(r.status, 0, `the process ended normally (stderr: ${r.stderr.slice(-400)})`);
  const line = /SURVIVED (.*)/.exec(r.stdout)?.[1];
  t.ok(line, 'it got past both calls');
  const outcomes = JSON.parse(line ?? '[]') as string[];
  t.equal(outcomes.length, 2);
  for (const o of outcomes) t.match(o, /EMFILE|could not be started/, 'each call failed with the reason');
});
