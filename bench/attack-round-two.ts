// The HTTP findings of the second hardening round (issue #30: 2, 5, 6, 7, 8, 9, 10, 11, 12), run by
// bench/attack-suite.ts against a gateway of their own (the shipped config plus a glob that passes
// the client's name to the hostile upstream, an admin token, tracing to a local OTLP receiver and
// a fast sandbox). Each is named `r2-N` (ATTACK_ONLY=r2-2,r2-5a picks). The WebSocket findings 1, 3
// and 4 are bench/attack-ws.ts's (another script), not run from here.
import type { IncomingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { HostileUpstream } from '../test/hardening/hostile-upstream.ts';
import type { OtlpReceiver } from '../test/tracing/otlp-receiver.ts';
import { post, type Gw } from './probe-gateway.ts';

type Run = () => Promise<{ requests: number; note: string }>;
export type Harness = {
  attack: (gw: Gw, finding: string, run: Run) => Promise<void>;
  pool: <T>(n: number, width: number, fn: (i: number) => Promise<T>) => Promise<T[]>;
  tally: (statuses: number[]) => string;
  raw: (
    gw: Gw,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string | Buffer,
  ) => Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>;
  sleep: (ms: number) => Promise<void>;
};
export type RoundTwoSetup = {
  key: string;
  upstreamKey: string;
  adminToken: string;
  hostile: HostileUpstream;
  receiver: OtlpReceiver;
};

/** What the round-two gateway adds to the shipped config (the caller writes the file). */
export function roundTwoConfig(c: Record<string, any>, s: Omit<RoundTwoSetup, 'key' | 'hostile'>): void {
  c.models['attack-*'] = { routes: [{ provider: 'hostile' }] };
  for (const m of ['leak-header', 'huge-usage']) c.models[m] = { routes: [{ provider: 'hostile', model: m }] };
  c.admin = { token: s.adminToken };
  c.tracing = { endpoint: s.receiver.url, sample_ratio: 0, export_interval_ms: 200 };
  c.tune = { ...c.tune, sandbox_delay_ms: 100, poll_interval_ms: 100 };
}

const chatBody = (model: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });

export async function roundTwo(h: Harness, gw: Gw, s: RoundTwoSetup): Promise<void> {
  const { attack, pool, tally, raw } = h;
  const auth = { 'content-type': 'application/json', authorization: `Bearer ${s.key}` };

  await attack(gw, 'r2-2 control characters in a glob model name', async () => {
    const names = ['attack-a\nb', 'attack-a\rb', 'attack-a\u0000b', 'attack-a\u007fb', 'attack-模型'];
    const statuses = await pool(500, 8, (i) =>
      post(gw.url, '/v1/chat/completions', chatBody(names[i % names.length]), s.key).then((r) => r.status),
    );
    return { requests: statuses.length, note: `LF, CR, NUL, DEL, CJK: ${tally(statuses)}` };
  });

  await attack(gw, 'r2-6 1 MB model names on a glob', async () => {
    const statuses = await pool(40, 4, (i) =>
      post(gw.url, '/v1/chat/completions', chatBody(`attack-${i}-${'m'.repeat(1_000_000)}`), s.key).then(
        (r) => r.status,
      ),
    );
    const usage = await fetch(`${gw.url}/admin/usage`, { headers: { authorization: `Bearer ${s.adminToken}` } });
    const text = await usage.text();
    return {
      requests: statuses.length,
      note: `${tally(statuses)}; /admin/usage ${usage.status}, ${text.length} bytes`,
    };
  });

  await attack(gw, 'r2-5a metadata of 1.5 M keys', async () => {
    const keys = Array.from({ length: 1_500_000 }, (_, i) => `"k${i}":"v"`).join(',');
    const body = `{"model":"echo","messages":[{"role":"user","content":"hi"}],"metadata":{${keys}}}`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(gw.url, '/v1/chat/completions', body, s.key)).status);
    return { requests: 3, note: `${(body.length / 1e6).toFixed(1)} MB: ${tally(statuses)}` };
  });

  for (const turns of [500_000, 90_000])
    await attack(gw, `r2-5b ${turns / 1000} k Messages turns to a Chat upstream`, async () => {
      const messages = Array.from({ length: turns }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'x' }));
      messages.push({ role: 'user', content: 'end' });
      const body = JSON.stringify({ model: 'attack-chat', max_tokens: 8, messages });
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await post(gw.url, '/v1/messages', body, s.key)).status);
      return { requests: 2, note: `${(body.length / 1e6).toFixed(1)} MB: ${tally(statuses)}` };
    });

  await attack(gw, 'r2-5c 1 M content parts to echo', async () => {
    const parts = Array.from({ length: 1_000_000 }, () => '{"type":"text","text":"x"}').join(',');
    const body = `{"model":"echo","messages":[{"role":"user","content":[${parts}]}]}`;
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await post(gw.url, '/v1/chat/completions', body, s.key)).status);
    return { requests: 2, note: `${(body.length / 1e6).toFixed(1)} MB: ${tally(statuses)}` };
  });

  await attack(gw, 'r2-7 upstream usage of 1e15 tokens, then /admin/usage', async () => {
    const calls = await pool(5, 1, () => post(gw.url, '/v1/chat/completions', chatBody('huge-usage'), s.key));
    await h.sleep(1500);
    const reports = await pool(5, 1, async () => {
      const r = await fetch(`${gw.url}/admin/usage`, { headers: { authorization: `Bearer ${s.adminToken}` } });
      await r.arrayBuffer();
      return r.status;
    });
    return { requests: 10, note: `calls ${tally(calls.map((r) => r.status))}; /admin/usage ${tally(reports)}` };
  });

  await attack(gw, 'r2-8 upstream error headers quoting the key', async () => {
    let leaked = 0;
    let debug = 0;
    const statuses = await pool(300, 8, async () => {
      const r = await post(gw.url, '/v1/chat/completions', chatBody('leak-header'), s.key);
      if ([...r.headers.values()].some((v) => v.includes(s.upstreamKey.slice(8)))) leaked++;
      if (r.headers.get('x-debug-authorization') !== null) debug++;
      return r.status;
    });
    return { requests: 300, note: `${tally(statuses)}; key in a header: ${leaked}; debug header relayed: ${debug}` };
  });

  await attack(gw, 'r2-9 forged Host in audio_url', async () => {
    let forged = 0;
    const statuses = await pool(20, 4, async () => {
      const submitted = await raw(
        gw,
        'POST',
        '/tune/submit/music',
        { ...auth, host: 'evil.example:666' },
        JSON.stringify({ prompt: 'la', title: 'T', tags: 'pop' }),
      );
      const id = (JSON.parse(submitted.text) as { data: string }).data;
      for (let i = 0; i < 100; i++) {
        const r = await raw(gw, 'GET', `/tune/fetch/${id}`, { ...auth, host: 'evil.example:666' });
        const task = (JSON.parse(r.text) as { data: { status: string } }).data;
        if (task.status === 'SUCCESS' || task.status === 'FAIL') {
          if (r.text.includes('evil.example')) forged++;
          return r.status;
        }
        await h.sleep(100);
      }
      return 0;
    });
    return { requests: 20, note: `${tally(statuses)}; audio_url on the forged host: ${forged}` };
  });

  await attack(gw, 'r2-10 invalid and upper-case gzip', async () => {
    const bad = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.from('not gzip at all')]);
    const good = gzipSync(chatBody('echo'));
    const statuses = await pool(400, 8, (i) =>
      raw(
        gw,
        'POST',
        '/v1/chat/completions',
        { ...auth, 'content-encoding': i % 2 ? 'GZIP' : 'gzip' },
        i % 2 ? good : bad,
      ).then((r) => r.status),
    );
    return { requests: 400, note: `invalid gzip and GZIP-labelled: ${tally(statuses)}` };
  });

  await attack(gw, 'r2-11 unauthenticated admin methods', async () => {
    let allow = 0;
    const methods = ['OPTIONS', 'GET', 'POST', 'DELETE', 'PROPFIND'];
    const statuses = await pool(500, 8, async (i) => {
      const r = await raw(gw, methods[i % methods.length], i % 2 ? '/admin/usage' : '/ADMIN/budgets/', {});
      if (r.headers.allow !== undefined) allow++;
      return r.status;
    });
    return { requests: 500, note: `${tally(statuses)}; answers with an allow list: ${allow}` };
  });

  await attack(gw, 'r2-12 forced traces, 8 KB tracestate and baggage', async () => {
    s.hostile.seen.length = 0;
    const spansBefore = s.receiver.spans.length;
    const tracestate = Array.from({ length: 300 }, (_, i) => `v${i}=${'t'.repeat(24)}`).join(',');
    const baggage = Array.from({ length: 300 }, (_, i) => `k${i}=${'b'.repeat(20)}`).join(',');
    const statuses = await pool(300, 8, () =>
      post(gw.url, '/v1/chat/completions', chatBody('attack-trace'), s.key, {
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        tracestate,
        baggage: baggage.slice(0, 7000),
      }).then((r) => r.status),
    );
    await h.sleep(1500);
    const longest = (h: string): number => Math.max(0, ...s.hostile.seen.map((x) => String(x[h] ?? '').length));
    return {
      requests: 300,
      note: `${tally(statuses)}; spans exported ${s.receiver.spans.length - spansBefore}; upstream saw tracestate ≤ ${longest('tracestate')} chars, baggage ≤ ${longest('baggage')}`,
    };
  });
}
