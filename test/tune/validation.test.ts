// Every family A validation rule: one test each, asserting the envelope's code, a message that
// names the field, and the 4xx status.
import t from 'tap';
import { OTHER_KEY } from '../helpers/start-gateway.ts';
import { call, submit, tuneGateway, untilFinished } from './tune-helpers.ts';

// The default SSRF guard: hooks on private addresses are refused.
const { up, gw } = await tuneGateway(t);

const custom = { prompt: 'la la', title: 'Song', tags: 'pop' };
const long = (n: number): string => 'x'.repeat(n);

// One row a rule: a 400 `invalid_request` whose message names the field, unless the row says otherwise.
type Case = {
  name: string;
  path: string;
  body: unknown;
  message: RegExp;
  status?: number;
  code?: string;
  key?: string;
};

const music = '/tune/submit/music';
const lyrics = '/tune/submit/lyrics';
const fetchPath = '/tune/fetch';
/** The 400s of one route: [what is wrong, the body, the message]. */
const refusedAt = (path: string, rows: Array<[string, unknown, RegExp]>): Case[] =>
  rows.map(([name, body, message]) => ({ name, path, body, message }));

const cases: Case[] = [
  ...refusedAt(music, [
    ['a body that is not an object', [custom], /body: expected a JSON object/],
    ['no mode fields at all', {}, /prompt: required .*gpt_description_prompt.*continuation/],
    ['custom mode without prompt', { title: 'T', tags: 'pop' }, /^prompt: required in custom mode/],
    ['custom mode without title', { prompt: 'p', tags: 'pop' }, /^title: required in custom mode/],
    ['custom mode without tags', { prompt: 'p', title: 'T' }, /^tags: required in custom mode/],
    ['prompt that is not a string', { ...custom, prompt: 42 }, /^prompt: expected a string/],
    ['prompt over its length limit', { ...custom, prompt: long(5001) }, /^prompt: at most 5000 characters/],
    ['title over its length limit', { ...custom, title: long(201) }, /^title: at most 200 characters/],
    ['tags over their length limit', { ...custom, tags: long(1001) }, /^tags: at most 1000 characters/],
    [
      'inspiration mode with a prompt',
      { gpt_description_prompt: 'idea', prompt: 'lyrics' },
      /^prompt: not allowed with gpt_description_prompt/,
    ],
    [
      'inspiration mode with a title',
      { gpt_description_prompt: 'idea', title: 'T' },
      /^title: not allowed with gpt_description_prompt/,
    ],
    [
      'inspiration mode with tags',
      { gpt_description_prompt: 'idea', tags: 'pop' },
      /^tags: not allowed with gpt_description_prompt/,
    ],
    [
      'gpt_description_prompt over its length limit',
      { gpt_description_prompt: long(3001) },
      /^gpt_description_prompt: at most 3000/,
    ],
    [
      'continuation without continue_at',
      { task_id: 'x', continue_clip_id: 'c' },
      /^continue_at: required for a continuation/,
    ],
    [
      'continuation without continue_clip_id',
      { task_id: 'x', continue_at: 10 },
      /^continue_clip_id: required for a continuation/,
    ],
    [
      'continuation without task_id',
      { continue_at: 10, continue_clip_id: 'c' },
      /^task_id: required for a continuation/,
    ],
    [
      'continue_at that is not a number',
      { task_id: 'x', continue_at: '10', continue_clip_id: 'c' },
      /^continue_at: expected a number/,
    ],
    [
      'a negative continue_at',
      { task_id: 'x', continue_at: -1, continue_clip_id: 'c' },
      /^continue_at: must be 0 or more/,
    ],
    [
      'continuation with gpt_description_prompt',
      { task_id: 'x', continue_at: 1, continue_clip_id: 'c', gpt_description_prompt: 'idea' },
      /^gpt_description_prompt: not allowed in a continuation/,
    ],
    [
      'continuation of an unknown task',
      { task_id: 'no-such-task', continue_at: 1, continue_clip_id: 'c' },
      /^task_id: no task 'no-such-task' in this workspace/,
    ],
    [
      'an mv that is not a configured music model',
      { ...custom, mv: 'tune-v4' },
      /^mv: 'tune-v4' is not a music model here; use one of 'tune-v3-0', 'tune-v3-5'/,
    ],
    ['an mv that is not a string', { ...custom, mv: 3 }, /^mv: expected a string/],
  ]),
  {
    name: 'an mv outside the key’s allow-list',
    path: music,
    body: custom,
    key: OTHER_KEY,
    status: 403,
    code: 'forbidden',
    message: /^mv: this API key may not use model 'tune-v3-0'/,
  },
  ...refusedAt(music, [
    [
      'make_instrumental that is not a boolean',
      { ...custom, make_instrumental: 'yes' },
      /^make_instrumental: expected a boolean/,
    ],
    [
      'a notify_hook that is not a URL',
      { ...custom, notify_hook: 'not a url' },
      /^notify_hook: expected an absolute http or https URL/,
    ],
    [
      'a notify_hook with another scheme',
      { ...custom, notify_hook: 'ftp://example.com/x' },
      /^notify_hook: expected an http or https URL/,
    ],
    [
      'a notify_hook with credentials',
      { ...custom, notify_hook: 'https://u:p@example.com/x' },
      /^notify_hook: credentials in the URL/,
    ],
    [
      'a notify_hook over its length limit',
      { ...custom, notify_hook: `https://example.com/${long(2100)}` },
      /^notify_hook: at most 2048/,
    ],
    ['an unknown music field', { ...custom, negative_tags: 'metal' }, /^negative_tags: unknown field/],
  ]),
  ...refusedAt(lyrics, [
    ['lyrics without prompt', {}, /^prompt: required/],
    ['a lyrics prompt that is not a string', { prompt: ['a'] }, /^prompt: expected a string/],
    ['a lyrics prompt over its length limit', { prompt: long(3001) }, /^prompt: at most 3000/],
    ['an unknown lyrics field', { prompt: 'p', mv: 'tune-v3-0' }, /^mv: unknown field/],
    [
      'a lyrics notify_hook that is not a URL',
      { prompt: 'p', notify_hook: 'nope' },
      /^notify_hook: expected an absolute/,
    ],
  ]),
  ...refusedAt(fetchPath, [
    ['a fetch without ids', {}, /^ids: required/],
    ['ids that are not an array', { ids: 'abc' }, /^ids: expected an array/],
    ['an id that is not a string', { ids: ['a', 7] }, /^ids\.1: expected a task id string/],
    ['more ids than one fetch takes', { ids: Array.from({ length: 101 }, (_, i) => `t${i}`) }, /^ids: at most 100/],
    ['an unknown action filter', { ids: ['a'], action: 'VIDEO' }, /^action: must be one of 'MUSIC', 'LYRICS'/],
  ]),
];

for (const c of cases) {
  t.test(`refuses ${c.name}`, async (t) => {
    const r = await call(gw, 'POST', c.path, c.body, c.key);
    t.equal(r.status, c.status ?? 400);
    t.equal(r.body.code, c.code ?? 'invalid_request');
    t.match(r.body.message, c.message);
    t.equal(r.body.data, null);
  });
}

t.test('refuses a body that is not JSON', async (t) => {
  const r = await call(gw, 'POST', music, '{"prompt": ');
  t.equal(r.status, 400);
  t.equal(r.body.code, 'invalid_request');
  t.match(r.body.message, /JSON/);
});

t.test('refuses a content type other than JSON', async (t) => {
  const r = await call(gw, 'POST', music, undefined, undefined, { 'content-type': 'text/plain' });
  t.equal(r.status, 415);
  t.equal(r.body.code, 'invalid_request');
  t.match(r.body.message, /content-type/);
});

t.test('refuses a missing or wrong key with 401', async (t) => {
  for (const key of [null, 'sk-wrong-key-000']) {
    const r = await call(gw, 'POST', music, custom, key);
    t.equal(r.status, 401);
    t.equal(r.body.code, 'unauthorized');
    t.equal(r.body.data, null);
  }
  const g = await call(gw, 'GET', '/tune/fetch/anything', undefined, null);
  t.equal(g.status, 401);
});

t.test('answers an unknown task id with a 404 envelope', async (t) => {
  const r = await call(gw, 'GET', '/tune/fetch/no-such-task');
  t.equal(r.status, 404);
  t.same(r.body, { code: 'not_found', message: "task 'no-such-task' not found", data: null });
});

t.test('answers an unknown /tune/ route with a 404 envelope', async (t) => {
  const r = await call(gw, 'POST', '/tune/submit/video', custom);
  t.equal(r.status, 404);
  t.equal(r.body.code, 'not_found');
});

t.test('custom mode takes an empty prompt when make_instrumental is true', async (t) => {
  const id = await submit(gw, music, { title: 'Instrumental', tags: 'ambient', make_instrumental: true });
  t.same(up.submissions().at(-1)!.body, {
    prompt: '',
    title: 'Instrumental',
    tags: 'ambient',
    mv: 'chirp-v3-0',
    make_instrumental: true,
  });
  t.ok(id);
});

t.test('continuation rules that need a real task', async (t) => {
  up.script({ statuses: ['IN_PROGRESS'], hold: true });
  const running = await submit(gw, music, custom);
  const r1 = await call(gw, 'POST', music, { task_id: running, continue_at: 1, continue_clip_id: 'c' });
  t.equal(r1.status, 400);
  t.match(r1.body.message, /^task_id: task '.*' has not succeeded \(status IN_PROGRESS\)/, 'an unfinished task');

  const lyricsTask = await submit(gw, lyrics, { prompt: 'p' });
  await untilFinished(gw, lyricsTask);
  const r2 = await call(gw, 'POST', music, { task_id: lyricsTask, continue_at: 1, continue_clip_id: 'c' });
  t.equal(r2.status, 400);
  t.match(r2.body.message, /^task_id: task '.*' is a LYRICS task/, 'a lyrics task');

  const done = await submit(gw, music, custom);
  const finished = await untilFinished(gw, done);
  const clip = (finished.data as Array<{ id: string }>)[0].id;
  const r3 = await call(gw, 'POST', music, { task_id: done, continue_at: 1, continue_clip_id: 'clip-of-someone-else' });
  t.equal(r3.status, 400);
  t.match(r3.body.message, /^continue_clip_id: task '.*' has no clip 'clip-of-someone-else'/, 'a clip not in the task');
  const r4 = await call(gw, 'POST', music, { task_id: done, continue_at: 500, continue_clip_id: clip });
  t.equal(r4.status, 400);
  t.match(r4.body.message, /^continue_at: 500 s is past the end of clip/, 'an offset past the clip’s end');
  for (const r of [r1, r2, r3, r4]) t.equal(r.body.code, 'invalid_request');
});

t.test('a hook on a private address is refused at submission by default', async (t) => {
  const before = up.submissions().length;
  for (const hook of [
    `http://127.0.0.1:9/x`,
    'http://localhost:9/x',
    'http://[::1]:9/x',
    'http://[::ffff:127.0.0.1]:9/x',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.8/x',
  ]) {
    const r = await call(gw, 'POST', '/tune/submit/music', { ...custom, notify_hook: hook });
    t.equal(r.status, 400, hook);
    t.equal(r.body.code, 'invalid_request');
    t.match(r.body.message, /^notify_hook: refused: /);
    t.match(r.body.message, /allow_private_addresses/);
  }
  const lyr = await call(gw, 'POST', '/tune/submit/lyrics', { prompt: 'p', notify_hook: `http://127.0.0.1:9/x` });
  t.equal(lyr.status, 400);
  t.match(lyr.body.message, /^notify_hook: refused/);
  t.equal(up.submissions().length, before, 'nothing was submitted upstream');
});
