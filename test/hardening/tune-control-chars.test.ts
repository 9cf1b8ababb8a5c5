// Finding 11 of the hardening issue: a NUL byte in a music title was accepted (200), and the
// sandbox's render (a NUL cannot be a program argument) failed on every poll until the task's
// 900 s deadline. Now control characters other than tab, LF and CR are a 400 in family A's
// envelope naming the field, and a render that can never succeed fails its task at once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MemoryStore } from '../../src/infra/store/memory-store.ts';
import { SandboxTuneProvider } from '../../src/families/tune/sandbox-tune-provider.ts';
import { call, startInProcessGateway, testConfig } from '../tune/tune-helpers.ts';

const gw = await startInProcessGateway(
  testConfig({
    providers: { sandbox: { type: 'sandbox-tune' } },
    models: { 'tune-v3-0': { routes: [{ provider: 'sandbox', model: 'sandbox-v3' }] } },
    tune: { music_models: ['tune-v3-0'], default_model: 'tune-v3-0', sandbox_delay_ms: 50, poll_interval_ms: 40 },
  }),
);
t.teardown(() => gw.stop());

const custom = { prompt: '[Verse]\nla la', title: 'Song', tags: 'pop' };

for (const [field, value, code] of [
  ['title', 'bad\u0000title', '0000'],
  ['prompt', 'ring \u0007 the bell', '0007'],
  ['tags', 'pop\u001b[31m', '001B'],
  ['gpt_description_prompt', 'a song\u0000', '0000'],
] as const) {
  t.test(`a control character in ${field} is a 400 naming ${field}`, async (t) => {
    const body = field === 'gpt_description_prompt' ? { gpt_description_prompt: value } : { ...custom, [field]: value };
    const r = await call(gw, 'POST', '/tune/submit/music', body);
    t.equal(r.status, 400);
    t.equal(r.body.code, 'invalid_request');
    t.match(r.body.message, new RegExp(`^${field}: control character U\\+${code}`));
    t.equal(r.body.data, null);
  });
}

t.test('a control character in a lyrics prompt is a 400 naming prompt', async (t) => {
  const r = await call(gw, 'POST', '/tune/submit/lyrics', { prompt: 'love\u0000' });
  t.equal(r.status, 400);
  t.match(r.body.message, /^prompt: control character/);
});

t.test('tabs, line feeds and carriage returns are still accepted', async (t) => {
  const r = await call(gw, 'POST', '/tune/submit/music', { ...custom, prompt: '[Verse]\r\n\tla la\nla' });
  t.equal(r.status, 200);
  t.equal(r.body.code, 'success');
});

t.test('a render that can never succeed fails the task instead of being retried', async (t) => {
  // The provider is driven directly, past the decoder, as a task stored before the check existed would be.
  const provider = new SandboxTuneProvider(
    'sandbox',
    new MemoryStore(),
    mkdtempSync(join(tmpdir(), 'polygate-render-')),
    0,
  );
  const id = await provider.submit(
    {
      kind: 'music',
      model: 'tune-v3-0',
      instrumental: false,
      mode: { type: 'custom', lyrics: 'la la', title: 'bad\u0000title', tags: 'pop' },
    },
    'sandbox-v3',
  );
  const [view] = await provider.fetch([id]);
  t.equal(view.status, 'FAIL');
  t.match(view.failReason, /sandbox could not render audio/);
});
