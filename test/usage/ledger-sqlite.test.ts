// Prices and ledger totals on the sqlite driver, for every family (test/usage/ledger-totals.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startOpenAIAudioUpstream } from '../emulators/openai-audio-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startGateway } from '../helpers/start-gateway.ts';
import { checkTotals } from './ledger-totals.ts';
import { pricedConfig, usage } from './usage-helpers.ts';

const [chat, anth, audio] = await Promise.all([
  startOpenAIChatUpstream(),
  startAnthropicUpstream(),
  startOpenAIAudioUpstream(),
]);
const db = join(mkdtempSync(join(tmpdir(), 'polygate-ledger-')), 'polygate.db');
const config = pricedConfig(
  { chatUrl: chat.url, anthropicUrl: anth.url, audioUrl: audio.url, audioKey: audio.key },
  { storage: { driver: 'sqlite', path: db } },
);
t.teardown(() => Promise.all([chat.close(), anth.close(), audio.close()]));

t.test('every family priced and totalled exactly (sqlite)', async (t) => {
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  await checkTotals(t, gw);
});

t.test('the ledger is in the database file: a restart reads the same totals', async (t) => {
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  const r = await usage(gw, 'group_by=model&since=1d');
  t.equal(r.rows.find((x) => x.model === 'chat-a')?.requests, 2);
  t.ok(r.totals.cost_nano > 0);
});
