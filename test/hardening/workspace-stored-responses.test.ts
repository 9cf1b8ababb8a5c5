// limits.max_workspace_stored_bytes through a running gateway (sqlite) and the OpenAI SDK: a
// request whose own input cannot fit gets 400 naming `store` before any upstream call; an answer
// that only its output takes past the limit is returned, not stored, with a warning header;
// DELETE frees the room; store: false and other workspaces are unaffected.
import OpenAI from 'openai';
import t from 'tap';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { OTHER_KEY, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const LIMIT = 130_000;
const gw = await startInProcessGateway(
  testConfig({ storage: { driver: 'sqlite', path: ':memory:' }, limits: { max_workspace_stored_bytes: LIMIT } }),
);
t.teardown(() => gw.stop());
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

type Answered = { kind: 'stored' | 'not-stored'; id: string; warning: string };
type Outcome = Answered | { kind: 'refused'; error: InstanceType<typeof OpenAI.BadRequestError> };

/** The HTTP status and error param of a call expected to fail (0 if it succeeded). */
const failure = (p: Promise<unknown>): Promise<{ status: number; param?: string | null }> =>
  p.then(
    () => ({ status: 0 }),
    (e: InstanceType<typeof OpenAI.APIError>) => ({ status: e.status ?? -1, param: e.param }),
  );

/** One echo request of `chars` characters; how it ended for storage. */
async function send(chars: number, store = true): Promise<Outcome> {
  try {
    const { data, response } = await client.responses
      .create({ model: 'echo', input: `${'w'.repeat(chars)} end`, store })
      .withResponse();
    const warning = response.headers.get('x-polygate-warnings') ?? '';
    return { kind: /store: .*was not stored/.test(warning) ? 'not-stored' : 'stored', id: data.id, warning };
  } catch (e) {
    if (e instanceof OpenAI.BadRequestError) return { kind: 'refused', error: e };
    throw e;
  }
}

const stored: string[] = [];

t.test('responses are stored until the workspace is full; the next answer is returned but not stored', async (t) => {
  // Each 8,000-character echo stores its text six times (turn, record and items, input and
  // answer): about 50 KB. Two fit in 130 KB; the third passes the check on its input (about
  // 24 KB more) and only its answer takes the workspace past the limit.
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 3; i++) outcomes.push(await send(8_000));
  t.same(
    outcomes.map((o) => o.kind),
    ['stored', 'stored', 'not-stored'],
  );
  for (const o of outcomes) if (o.kind === 'stored') stored.push(o.id);
  const last = outcomes[2] as Answered;
  t.match(last.warning, /max_workspace_stored_bytes/);
  t.match(
    await failure(client.responses.retrieve(last.id)),
    { status: 404 },
    'the answer the client got was not stored',
  );
  t.match(
    await failure(client.responses.create({ model: 'echo', input: 'more', previous_response_id: last.id })),
    { status: 404, param: 'previous_response_id' },
    'nor can it be continued',
  );
  t.ok(await client.responses.retrieve(stored[0]), 'what was stored before is still there');
});

t.test('a request whose own input cannot fit is refused before the upstream, naming store', async (t) => {
  const o = await send(20_000);
  t.equal(o.kind, 'refused');
  const err = (o as Extract<Outcome, { kind: 'refused' }>).error;
  t.equal(err.status, 400);
  t.equal(err.param, 'store');
  t.match(err.message, /max_workspace_stored_bytes/);
  t.match(err.error, { type: 'invalid_request_error' });
  t.equal(err.headers.get('x-polygate-route'), null, 'no route served it: no upstream call');
});

t.test('store: false and other workspaces still work while this one is full', async (t) => {
  const o = await send(20_000, false);
  t.equal(o.kind, 'stored', 'answered without a warning (nothing was to be stored)');
  const other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const r = await other.responses.create({ model: 'echo', input: 'x'.repeat(8_000) });
  t.ok(await other.responses.retrieve(r.id), 'stored in its own workspace');
});

t.test('DELETE frees the room: the same request is stored again', async (t) => {
  for (const id of stored) await client.responses.delete(id);
  const again = [await send(8_000), await send(8_000)];
  t.same(
    again.map((o) => o.kind),
    ['stored', 'stored'],
    'both deleted responses made room for two again',
  );
});
