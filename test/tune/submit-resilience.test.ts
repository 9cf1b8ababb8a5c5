// Music submissions go through the chat route loop (src/services/resilience/run-routes.ts) with the one
// failure classifier: a 503 is retried on the route's own policy (Retry-After honoured), a 429
// falls back to the next route like a chat request, and a 400 is the caller's at once.
// Before the unification a submission was never retried and a 429 did not fall back.
import t from 'tap';
import { startTuneUpstream } from '../emulators/tune-upstream.ts';
import { call, startInProcessGateway, submit, untilFinished, upstreamConfig } from './tune-helpers.ts';

const up = await startTuneUpstream();
const other = await startTuneUpstream();
const gw = await startInProcessGateway(
  upstreamConfig(up, {
    providers: { other: { type: 'tune', base_url: other.url, api_key: other.apiKey } },
    models: {
      // The default music model: one route, retried once.
      'tune-v3-0': {
        routes: [
          { provider: 'up', model: 'chirp-v3-0', retries: { max_retries: 1, base_delay_ms: 10, max_delay_ms: 20 } },
        ],
      },
      // Two routes, no retries: the next route at once.
      'tune-v3-5': {
        routes: [
          { provider: 'up', model: 'chirp-v3-5' },
          { provider: 'other', model: 'other-v3-5' },
        ],
      },
    },
  }),
);
t.teardown(async () => {
  await gw.stop();
  await Promise.all([up.close(), other.close()]);
});

const custom = { prompt: 'words', title: 'T', tags: 'pop' };
const submits = (u: typeof up): number => u.requests.filter((r) => r.path === '/tune/submit/music').length;

t.test('a submission answered 503 is retried on the same route, after its Retry-After', async (t) => {
  const before = submits(up);
  up.script({ submitError: { status: 503, message: 'busy', retryAfter: 1 } }, { statuses: ['SUCCESS'] });
  const id = await submit(gw, '/tune/submit/music', custom);
  t.equal(submits(up) - before, 2, 'two submissions: the 503, then the retry');
  t.equal((await untilFinished(gw, id)).status, 'SUCCESS');
});

t.test('a submission answered 429 falls back to the next route', async (t) => {
  const [before, otherBefore] = [submits(up), submits(other)];
  up.script({ submitError: { status: 429, message: 'slow down' } });
  other.script({ statuses: ['SUCCESS'] });
  const id = await submit(gw, '/tune/submit/music', { ...custom, mv: 'tune-v3-5' });
  t.equal(submits(up) - before, 1);
  t.equal(submits(other) - otherBefore, 1, 'the second route took it');
  t.same(other.submissions().at(-1)!.body, { ...custom, mv: 'other-v3-5', make_instrumental: false });
  t.equal((await untilFinished(gw, id)).status, 'SUCCESS');
});

t.test('a submission answered 503 on every try reaches the caller, after the retry', async (t) => {
  const before = submits(up);
  up.script({ submitError: { status: 503, message: 'down' } }, { submitError: { status: 503, message: 'still down' } });
  const r = await call(gw, 'POST', '/tune/submit/music', custom);
  t.equal(r.status, 503);
  t.match(r.body.message, /still down/);
  t.equal(submits(up) - before, 2);
});

t.test('a 400 from the upstream is not retried', async (t) => {
  const before = submits(up);
  up.script({ submitError: { status: 400, message: 'tags: too long' } });
  const r = await call(gw, 'POST', '/tune/submit/music', custom);
  t.equal(r.status, 400);
  t.equal(submits(up) - before, 1);
});
