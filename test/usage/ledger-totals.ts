// The body of the ledger tests, run on sqlite and on Redis: one request of every family through
// the official SDKs (chat tokens, speech characters and seconds, music tasks), then the admin API's
// totals compared with what the prices say those requests cost.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import type { Test } from 'tap';
import { fixtureDir, speechFixture } from '../emulators/openai-audio-upstream.ts';
import { TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { submit } from '../tune/tune-helpers.ts';
import { ADMIN_TOKEN, prices, tokenNano, usage, type Row } from './usage-helpers.ts';

export async function checkTotals(t: Test, gw: Gateway): Promise<void> {
  const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });

  // Chat Completions, translated nowhere (pass-through to the chat upstream), twice.
  const chatUsage = { input: 0, output: 0 };
  for (const text of ['hello there', 'count these words please']) {
    const r = await openai.chat.completions.create({ model: 'chat-a', messages: [{ role: 'user', content: text }] });
    chatUsage.input += r.usage!.prompt_tokens;
    chatUsage.output += r.usage!.completion_tokens;
  }
  // Messages, streamed, to the Anthropic upstream.
  const msg = await anthropic.messages
    .stream({ model: 'claude-b', max_tokens: 64, messages: [{ role: 'user', content: 'stream this back to me' }] })
    .finalMessage();
  // Chat Completions translated to the Anthropic upstream.
  const translated = await openai.chat.completions.create({
    model: 'claude-b',
    messages: [{ role: 'user', content: 'and this one too' }],
  });
  const claude = {
    input: msg.usage.input_tokens + translated.usage!.prompt_tokens,
    output: msg.usage.output_tokens + translated.usage!.completion_tokens,
  };

  // Speech: characters in, seconds of raw PCM out (24 kHz, 16-bit mono).
  const input = 'Hello from the ledger.';
  const speech = await openai.audio.speech.create({ model: 'tts-1', input, voice: 'alloy', response_format: 'pcm' });
  const pcm = Buffer.from(await speech.arrayBuffer());
  t.same(pcm, speechFixture('pcm'));
  const ttsSeconds = Math.round((pcm.length / 48_000) * 1000) / 1000;
  // Transcription: seconds of the upload, as measured by the gateway.
  await openai.audio.transcriptions.create({
    model: 'whisper-1',
    file: await toFile(readFileSync(join(fixtureDir, 'tone-0.3s.wav')), 'tone.wav'),
  });
  // Music: two tasks on the priced model, one on an unpriced one.
  await submit(gw, '/tune/submit/music', { prompt: '[Verse]\nla la', title: 'One', tags: 'pop', mv: 'tune-v3-0' });
  await submit(gw, '/tune/submit/music', { prompt: '[Verse]\nla la la', title: 'Two', tags: 'pop', mv: 'tune-v3-0' });
  await submit(gw, '/tune/submit/music', { prompt: '[Verse]\nna na', title: 'Three', tags: 'pop', mv: 'tune-v3-5' });

  const byModel = async (): Promise<Map<string, Row>> =>
    new Map((await usage(gw, 'group_by=model&since=1d')).rows.map((r) => [String(r.model), r]));
  const rows = await waitFor('every record in the ledger', async () => {
    const m = await byModel();
    return m.get('whisper-1')?.requests === 1 && m.get('tts-1')?.requests === 1 && m.get('tune-v3-5')?.requests === 1
      ? m
      : undefined;
  });

  // The token-priced models: chat by its client-facing name, claude by the provider's upstream model.
  for (const [model, used, price, what] of [
    ['chat-a', chatUsage, prices.chat, 'chat: the client-facing price'],
    ['claude-b', claude, prices.anthropicRoute, 'the provider model price'],
  ] as const) {
    const row = rows.get(model)!;
    t.match(row, { requests: 2, input_tokens: used.input, output_tokens: used.output, unpriced: 0 });
    t.equal(row.cost_nano, tokenNano(used.input, price.input) + tokenNano(used.output, price.output), what);
  }

  const tts = rows.get('tts-1')!;
  t.match(tts, { characters: input.length, audio_seconds: ttsSeconds });
  t.equal(
    tts.cost_nano,
    Math.round(input.length * prices.tts.per_character * 1e9 + ttsSeconds * prices.tts.per_second * 1e9),
    'speech: characters and seconds',
  );

  const stt = rows.get('whisper-1')!;
  t.ok(
    Number(stt.audio_seconds) > 0.25 && Number(stt.audio_seconds) < 0.35,
    `the upload's seconds (${stt.audio_seconds})`,
  );
  t.equal(
    stt.cost_nano,
    Math.round(Number(stt.audio_seconds) * prices.whisper.per_second * 1e9),
    'transcription: seconds',
  );

  t.match(
    rows.get('tune-v3-0'),
    { requests: 2, tasks: 2, cost_nano: 2 * prices.music.per_task * 1e9 },
    'music: per task',
  );
  t.match(
    rows.get('tune-v3-5'),
    { requests: 1, tasks: 1, cost_nano: 0, unpriced: 1 },
    'an unpriced model costs 0 and says so',
  );

  const all = await usage(gw, 'group_by=key&since=1d');
  const sum = [...rows.values()].reduce((s, r) => s + r.cost_nano, 0);
  t.equal(all.totals.cost_nano, sum, 'the totals are the sum of the rows, to the nano-dollar');
  t.equal(all.rows.length, 1);
  t.match(all.rows[0], { key: 'test', cost_nano: sum, cost_usd: sum / 1e9 });

  const csv = await (
    await fetch(`${gw.url}/admin/usage?group_by=model&since=1d&format=csv`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
  ).text();
  const [header, ...lines] = csv.trim().split('\n');
  t.equal(header.split(',')[0], 'model');
  t.ok(header.split(',').includes('cost_usd'));
  t.equal(lines.length, rows.size, 'one CSV line per model');
  t.ok(lines.some((l) => l.startsWith(`chat-a,2,${chatUsage.input},${chatUsage.output},`)));

  // The spend metric agrees with the ledger.
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  const spend = [...metrics.matchAll(/^polygate_spend_usd_total\{[^}]*key="test"[^}]*\} (\S+)$/gm)].reduce(
    (s, m) => s + Number(m[1]),
    0,
  );
  t.ok(Math.abs(spend - sum / 1e9) < 1e-9, `polygate_spend_usd_total ${spend} = ${sum / 1e9}`);
}
