// Config hot reload against a running polygate: a changed file is picked up (fs.watch) and on
// SIGHUP; an invalid file is refused, reported in the log and a metric, and the old config keeps
// serving; a stream in flight finishes on the config it started with.
import { renameSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { stringify } from 'yaml';
import { startFaultUpstream } from '../emulators/fault-upstream.ts';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { messagesStreamText, metricValue, sseEvents, waitUntil } from '../resilience/resilience-helpers.ts';
import { postMessages, userSays } from '../helpers/post-messages.ts';

const fault = await startFaultUpstream();
const flaky = { flaky: { type: 'openai', base_url: fault.openaiUrl, api_key: 'sk-up', api: 'chat_completions' } };
const base = (models: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  testConfig({
    providers: flaky,
    models: modelRoutes({ 'm-old': 'echo/echo-1', ...models }),
    reload: { debounce_ms: 50 },
    ...extra,
  });
const gw = await startGateway(base({ streamer: 'flaky/up-stream' }));
t.teardown(async () => {
  await gw.stop();
  await fault.close();
});

/** Writes the file as editors do: a new file renamed over the old one. */
function save(content: Record<string, unknown> | string): void {
  const tmp = `${gw.configFile}.tmp`;
  writeFileSync(tmp, typeof content === 'string' ? content : stringify(content));
  renameSync(tmp, gw.configFile);
}

const status = async (model: string): Promise<number> => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
};
const reloads = (outcome: string): Promise<number> => metricValue(gw, 'polygate_config_reloads_total', { outcome });

t.test('a valid file is swapped in when it changes', async (t) => {
  t.equal(await status('m-new'), 404);
  save(base({ 'm-new': 'echo/echo-1' }));
  await waitUntil('the new model to be served', async () => ((await status('m-new')) === 200 ? true : undefined));
  t.equal(await reloads('ok'), 1);
  await gw.matchLog(t, /config reloaded/);
});

t.test('an invalid file is refused; the old config keeps serving', async (t) => {
  save('keys: [\n  - id: broken\n');
  await waitUntil('the refusal', async () => ((await reloads('error')) === 1 ? true : undefined));
  t.equal(await status('m-new'), 200, 'still served by the config in force');
  await gw.matchLog(t, /config reload refused/);
  save(base({ 'm-new': 'nowhere/x' }));
  await waitUntil('the second refusal', async () => ((await reloads('error')) === 2 ? true : undefined));
  await gw.matchLog(t, /unknown provider 'nowhere'/, 'the problems are in the log');
  t.equal(await status('m-new'), 200);
  t.equal(await reloads('ok'), 1);
});

t.test('SIGHUP reloads (here with file watching switched off)', async (t) => {
  save(base({}, { reload: { watch: false } }));
  await waitUntil('the watch-off config', async () => ((await status('m-new')) === 404 ? true : undefined));
  const ok = await reloads('ok');
  save(base({ 'm-hup': 'echo/echo-1' }, { reload: { watch: false } }));
  // Time for a watcher to (wrongly) act on the change: several debounce periods.
  await new Promise((r) => setTimeout(r, 300));
  t.equal(await status('m-hup'), 404, 'not watched: nothing changes by itself');
  gw.process.kill('SIGHUP');
  await waitUntil('the SIGHUP reload', async () => ((await status('m-hup')) === 200 ? true : undefined));
  t.equal(await reloads('ok'), ok + 1);
});

t.test('a stream in flight finishes on the config it started with', async (t) => {
  save(base({ streamer: 'flaky/up-stream' }, { reload: { watch: false } }));
  gw.process.kill('SIGHUP');
  await waitUntil('the streamer model', async () => ((await status('streamer')) === 200 ? true : undefined));
  fault.reset();
  fault.script({ kind: 'ok', text: 'one two three four five six', pauseAfterChunks: 2 });
  const res = await postMessages(gw.url, { model: 'streamer', max_tokens: 32, stream: true, messages: userSays('x') });
  t.equal(res.status, 200);
  await fault.waitForRequests(1);
  // The model and its provider leave the config while the stream is open.
  save(testConfig({ reload: { watch: false } }));
  gw.process.kill('SIGHUP');
  await waitUntil('the model to be gone', async () => ((await status('streamer')) === 404 ? true : undefined));
  fault.resume();
  const events = sseEvents(await res.text());
  t.equal(messagesStreamText(events), 'one two three four five six', 'the whole answer arrived');
  t.equal(events[events.length - 1].event, 'message_stop');
});
