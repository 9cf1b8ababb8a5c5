// Issue #25 item 3, the request log: requests made with the official OpenAI and Anthropic SDKs
// against a spawned gateway appear in GET /admin/requests with their ids, route, model, provider,
// formats, tokens, cost, latency (and a stream's first byte) and warnings; filters; CSV escaped
// against formula injection; content captured for workspace ws1 and not for ws2, readable and
// deletable; no secret stored; bad parameters and hostile inputs refused with a 400 naming them.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { startOpenAIAudioUpstream } from '../emulators/openai-audio-upstream.ts';
import { startOpenAIChatUpstream } from '../emulators/openai-chat-upstream.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, TEST_KEY } from '../helpers/start-gateway.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { admin, allPages, CAPTURE_BYTES, logConfig, one, page, type Row } from './request-log-helpers.ts';
import { ADMIN_TOKEN } from './usage-helpers.ts';

const [chat, anth] = await Promise.all([startOpenAIChatUpstream(), startAnthropicUpstream()]);
t.teardown(async () => {
  await Promise.all([chat.close(), anth.close()]);
});
const gw = await startInProcessGateway(logConfig(chat, anth));
t.teardown(() => gw.stop());

const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });

/** The row of a request id, once its record is in the log. */
const rowOf = (id: string): Promise<Row> =>
  waitFor(`request ${id} in the log`, async () =>
    (await page(gw.url, 'limit=500')).data.find((r) => r.request_id === id),
  );

t.test('SDK requests appear with their fields; content captured for ws1 only', async (t) => {
  const a = await openai(TEST_KEY)
    .chat.completions.create(
      { model: 'chat-a', messages: [{ role: 'user', content: 'hi from the openai sdk' }] },
      { headers: { 'x-request-id': 'rl-openai-1' } },
    )
    .withResponse();
  const rowA = await rowOf('rl-openai-1');
  t.match(rowA, {
    key: 'test',
    workspace: 'ws1',
    route: '/v1/chat/completions',
    model: 'chat-a',
    provider: 'oa',
    upstream_model: 'gpt-up',
    format_in: 'openai-chat',
    mode: 'passthrough',
    status: 200,
    outcome: 'ok',
    input_tokens: a.data.usage!.prompt_tokens,
    output_tokens: a.data.usage!.completion_tokens,
    usage_source: 'reported',
    ttfb_ms: null,
    warnings: [],
  });
  t.ok(rowA.cost_usd > 0, 'priced');
  t.ok(typeof rowA.latency_ms === 'number' && rowA.latency_ms > 0, `latency ${rowA.latency_ms} ms`);
  t.ok(Math.abs(Date.parse(rowA.time) - Date.now()) < 60_000 && rowA.time.endsWith('Z'), 'an ISO UTC time');

  // A stream, translated (Messages → Chat), with a field Chat has no place for: a warning.
  const stream = anthropic(TEST_KEY).messages.stream(
    {
      model: 'claude-on-chat',
      max_tokens: 50,
      top_k: 5,
      messages: [{ role: 'user', content: 'hi from the anthropic sdk' }],
    },
    { headers: { 'x-request-id': 'rl-anthropic-1' } },
  );
  const text = (await stream.finalMessage()).content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const rowB = await rowOf('rl-anthropic-1');
  t.match(rowB, {
    route: '/v1/messages',
    model: 'claude-on-chat',
    format_in: 'anthropic-messages',
    format_out: 'openai-chat',
    mode: 'translate',
    status: 200,
  });
  t.ok(typeof rowB.ttfb_ms === 'number' && rowB.ttfb_ms <= rowB.latency_ms!, `first byte at ${rowB.ttfb_ms} ms`);
  t.ok(
    rowB.warnings.some((w) => w.startsWith('top_k')),
    `the warning is kept: ${JSON.stringify(rowB.warnings)}`,
  );

  // ws1 captures: the body and the answer as the client got it, no credential anywhere.
  const full = await waitFor('the stream content', async () => {
    const r = await one(gw.url, 'rl-anthropic-1');
    return r.content ? r : undefined;
  });
  t.equal(full.has_content, true);
  t.match(full.content!.request, /hi from the anthropic sdk/);
  t.match(full.content!.response, /event: message_start/, 'the stream as relayed to the client');
  for (const w of text.split(' ').filter(Boolean)) t.match(full.content!.response, w, 'the answer text is in it');
  const plain = await waitFor('the JSON content', async () => (await one(gw.url, 'rl-openai-1')).content ?? undefined);
  t.match(plain.request, /hi from the openai sdk/);
  t.match(JSON.parse(plain.response!), { object: 'chat.completion' });
  t.equal(plain.max_bytes, CAPTURE_BYTES);
  for (const c of [full.content!, plain]) {
    const all = JSON.stringify(c);
    for (const secret of [TEST_KEY, 'sk-up-chat-secret', 'sk-up-anth-secret', ADMIN_TOKEN])
      t.notOk(all.includes(secret), `no ${secret.slice(0, 6)}… in the content`);
  }

  // ws2 does not capture.
  await openai(OTHER_KEY).chat.completions.create(
    { model: 'chat-a', messages: [{ role: 'user', content: 'not to be kept' }] },
    { headers: { 'x-request-id': 'rl-ws2-1' } },
  );
  const rowC = await rowOf('rl-ws2-1');
  t.match(rowC, { key: 'other', workspace: 'ws2', has_content: false });
  t.equal((await one(gw.url, 'rl-ws2-1')).content, null);

  // Content deleted: 204, then gone; the record stays.
  const del = await admin(gw.url, '/admin/requests/rl-openai-1/content', { method: 'DELETE' });
  t.equal(del.status, 204);
  const after = await one(gw.url, 'rl-openai-1');
  t.equal(after.content, null);
  t.equal(after.has_content, false);
  t.equal(after.model, 'chat-a');
  t.equal((await admin(gw.url, '/admin/requests/no-such-request/content', { method: 'DELETE' })).status, 404);
  t.equal((await admin(gw.url, '/admin/requests/no-such-request')).status, 404);
});

t.test("a relayed answer carries polygate's request id (the log's), the upstream's beside it", async (t) => {
  const r = await openai(TEST_KEY)
    .chat.completions.create({ model: 'chat-a', messages: [{ role: 'user', content: 'which id?' }] })
    .withResponse();
  const id = r.response.headers.get('x-request-id') ?? '';
  const row = await rowOf(id);
  t.equal(row.mode, 'passthrough', 'relayed');
  t.match(r.response.headers.get('x-upstream-request-id'), /^req_/, "the upstream's id, renamed");
});

t.test('a body past max_bytes is cut, and says so', async (t) => {
  const long = 'x'.repeat(CAPTURE_BYTES * 2);
  await openai(TEST_KEY).chat.completions.create(
    { model: 'chat-a', messages: [{ role: 'user', content: long }] },
    { headers: { 'x-request-id': 'rl-long-1' } },
  );
  const c = await waitFor('the content', async () => (await one(gw.url, 'rl-long-1')).content ?? undefined);
  t.equal(c.request_truncated, true);
  t.equal(Buffer.byteLength(c.request!), CAPTURE_BYTES);
});

t.test('filters and pages: no duplicate, no gap, newest first', async (t) => {
  const client = openai(OTHER_KEY);
  for (let i = 0; i < 23; i++)
    await client.chat.completions.create(
      { model: i % 2 ? 'echo' : 'chat-a', messages: [{ role: 'user', content: `n${i}` }] },
      { headers: { 'x-request-id': `rl-page-${i}` } },
    );
  await rowOf('rl-page-22');
  const { rows, pages } = await allPages(gw.url, 'key=other', 5);
  const ids = rows.map((r) => r.request_id).filter((id) => id.startsWith('rl-page-'));
  t.same(
    ids,
    Array.from({ length: 23 }, (_, i) => `rl-page-${22 - i}`),
    'every request once, newest first',
  );
  t.ok(pages >= 5, `${pages} pages`);
  t.ok(
    rows.every((r, i) => i === 0 || r.time <= rows[i - 1].time),
    'times never increase',
  );
  const echo = await allPages(gw.url, 'key=other&model=echo', 4);
  t.equal(echo.rows.filter((r) => r.request_id.startsWith('rl-page-')).length, 11);
  t.ok(echo.rows.every((r) => r.model === 'echo' && r.provider === 'echo'));
  t.same((await page(gw.url, 'workspace=ws1&model=echo')).data, [], 'an AND of the filters');
  t.ok((await page(gw.url, 'status=2xx&outcome=ok&provider=oa')).data.every((r) => r.provider === 'oa'));
  t.same((await page(gw.url, 'status=4xx')).data, []);
  const future = new Date(Date.now() + 3_600_000).toISOString();
  t.same((await page(gw.url, `since=${future}`)).data, []);
  t.ok((await page(gw.url, `since=1h&until=${future}`)).data.length > 0);
});

t.test('CSV: every column, cells escaped against quotes and formulas', async (t) => {
  await openai(OTHER_KEY).chat.completions.create(
    { model: 'echo', messages: [{ role: 'user', content: 'csv' }] },
    { headers: { 'x-request-id': '=HYPERLINK("http://evil.example","x"),1' } },
  );
  await rowOf('=HYPERLINK("http://evil.example","x"),1');
  const res = await admin(gw.url, '/admin/requests?format=csv&limit=500');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/csv/);
  const csv = await res.text();
  const [header, ...lines] = csv.trimEnd().split('\r\n');
  t.match(header, /^request_id,time,key,workspace,family,route,model,provider,/);
  t.ok(header.includes('latency_ms') && header.includes('warnings') && header.includes('has_content'));
  t.ok(
    lines.some((l) => l.startsWith(`"'=HYPERLINK(""http://evil.example"",""x""),1",`)),
    'the formula is an apostrophed, quoted text',
  );
  t.notOk(
    lines.some((l) => l.startsWith('=')),
    'no line starts a formula',
  );
  const accept = await admin(gw.url, '/admin/requests?limit=1', { headers: { accept: 'text/csv' } });
  t.match(accept.headers.get('content-type'), /^text\/csv/);
  const paged = await admin(gw.url, '/admin/requests?format=csv&limit=1');
  t.ok(paged.headers.get('x-next-cursor'), 'the next cursor in a header');
});

t.test('bad parameters: 400 naming the parameter', async (t) => {
  const cases: [string, string][] = [
    ['Model=chat-a', 'Model'],
    ['group_by=key', 'group_by'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=ten', 'limit'],
    ['status=abc', 'status'],
    ['status=600', 'status'],
    ['since=yesterday', 'since'],
    ['until=2026-13-45', 'until'],
    ['since=2026-11-02&until=2026-11-01', 'since'],
    ['format=xml', 'format'],
    ['key=a&key=b', 'key'],
    [`key=${'k'.repeat(200)}`, 'key'],
    ['model=%0d%0aX-Injected:1', 'model'],
    ['cursor=not-a-cursor', 'cursor'],
    // Long, but under Node's 16 KiB header limit: refused by the API, not by the HTTP parser.
    [`cursor=${'A'.repeat(10_000)}`, 'cursor'],
  ];
  for (const [query, param] of cases) {
    const res = await admin(gw.url, `/admin/requests?${query}`);
    const body = (await res.json()) as { error: { param?: string; message: string } };
    t.equal(res.status, 400, `${query.slice(0, 40)} → 400`);
    t.equal(body.error.param, param, `names ${param}: ${body.error.message.slice(0, 120)}`);
  }
  const unknownOnOne = await admin(gw.url, '/admin/requests/rl-openai-1?verbose=1');
  t.equal(unknownOnOne.status, 400);
});

t.test('a cursor altered, or reused with other filters, is refused', async (t) => {
  const first = await page(gw.url, 'key=other&limit=2');
  const cursor = first.next_cursor!;
  t.ok(cursor);
  const [payload, mac] = cursor.split('.');
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { t: number };
  decoded.t += 1_000_000;
  const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
  for (const [c, why] of [
    [forged, 'a forged position'],
    [`${payload}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`, 'a changed signature'],
    [`${payload}.${mac}.x`, 'a third part'],
  ]) {
    const res = await admin(gw.url, `/admin/requests?key=other&limit=2&cursor=${encodeURIComponent(c)}`);
    t.equal(res.status, 400, why);
    t.equal(((await res.json()) as { error: { param: string } }).error.param, 'cursor');
  }
  const other = await admin(gw.url, `/admin/requests?key=test&limit=2&cursor=${encodeURIComponent(cursor)}`);
  t.equal(other.status, 400, 'the cursor of another query');
  const same = await admin(gw.url, `/admin/requests?key=other&limit=2&cursor=${encodeURIComponent(cursor)}`);
  t.equal(same.status, 200, 'the cursor as it came');
});

t.test('hostile callers: wrong or missing token, client keys, path tricks', async (t) => {
  for (const path of ['/admin/requests', '/admin/requests/rl-openai-1', '/ADMIN/Requests']) {
    t.equal((await admin(gw.url, path, { token: null })).status, 401, `${path} without a token`);
    t.equal((await admin(gw.url, path, { token: 'wrong' })).status, 401, `${path} with a wrong token`);
    t.equal((await admin(gw.url, path, { token: TEST_KEY })).status, 401, `${path} with a client key`);
  }
  t.equal((await admin(gw.url, '/admin/requests/rl-openai-1/content', { method: 'DELETE', token: null })).status, 401);
  t.equal((await admin(gw.url, '/admin/requests/x?', { token: 'wrong' })).status, 401);
  for (const path of [
    '/admin/requests/..%2F..%2Fusage',
    '/admin/requests/%2e%2e',
    '/admin/requests/a%00b',
    `/admin/requests/${'r'.repeat(5000)}`,
  ]) {
    const res = await admin(gw.url, path);
    t.ok(res.status === 400 || res.status === 404, `${path.slice(0, 40)} → ${res.status}`);
    t.notOk((await res.text()).includes('"data"'), 'no log answered');
  }
  // The usage endpoint keeps its own answer: the request log's routes do not swallow it.
  t.equal((await admin(gw.url, '/admin/usage?since=1d')).status, 200);
});

t.test('speech: the request is kept, the audio only as its size', async (t) => {
  const audio = await startOpenAIAudioUpstream();
  t.teardown(() => audio.close());
  const config = logConfig(chat, anth);
  const providers = {
    ...(config.providers as object),
    audio: { type: 'openai', base_url: audio.url, api_key: audio.key },
  };
  const models = { ...(config.models as object), 'tts-1': { routes: [{ provider: 'audio', model: 'tts-up' }] } };
  const speechGw = await startInProcessGateway({ ...config, providers, models });
  t.teardown(() => speechGw.stop());
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${speechGw.url}/v1`, maxRetries: 0 });
  const res = await client.audio.speech.create(
    { model: 'tts-1', input: 'spoken words', voice: 'alloy', response_format: 'wav' },
    { headers: { 'x-request-id': 'rl-speech-1' } },
  );
  t.ok((await res.arrayBuffer()).byteLength > 0);
  const c = await waitFor('the content', async () => (await one(speechGw.url, 'rl-speech-1')).content ?? undefined);
  t.match(c.request, /spoken words/);
  t.match(c.response, /^\[\d+\+? bytes of audio\/wav, not kept\]$/);
  t.match(await one(speechGw.url, 'rl-speech-1'), { route: '/v1/audio/speech', model: 'tts-1', has_content: true });
});
