// A limit store that cannot answer (Redis down) lets requests through and says so in the log
// (src/services/access/key-limits.ts, failOpen): rpm, concurrency and tpm each fail open, and a
// store that answers "no slot" is still a refusal, not a failure.
import t from 'tap';
import type { RateCounter } from '../../src/services/limits/rate-counter.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig } from '../helpers/start-gateway.ts';

const KEY = 'sk-fail-open-00001';
const down = (): Promise<never> => Promise.reject(new Error('limit store unreachable'));
const failing: RateCounter = { take: down, add: down, acquireSlot: down, close: async () => {} };
// Answers, but every slot is taken: a refusal (429), not a store failure.
const full: RateCounter = {
  take: async () => ({ ok: true, window: 0 }),
  add: async () => {},
  acquireSlot: async () => undefined,
  close: async () => {},
};

const config = testConfig({
  keys: [{ id: 'limited', secret: KEY, workspace: 'w', limits: { rpm: 5, tpm: 1_000, concurrency: 1 } }],
});

const ask = (url: string): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hello' }] }),
  });

t.test('a store that cannot answer lets every request through, and the log says so', async (t) => {
  const gw = await startInProcessGateway(config, { share: { rateCounter: failing } });
  t.teardown(() => gw.stop());
  // More than the rpm allows: with no store to count them, none is refused.
  for (let i = 0; i < 7; i++) {
    const res = await ask(gw.url);
    t.equal(res.status, 200, `request ${i + 1} served`);
    await res.arrayBuffer();
  }
  const warned = gw
    .logs()
    .filter((l) => /^rate limits not enforced: (concurrency|rpm|tpm) failed$/.test(String(l.msg)));
  t.ok(warned.length >= 1, 'a warning names the limit that failed');
  t.equal(warned[0]?.level, 'warn');
});

t.test('a store that answers "no slot" refuses with 429', async (t) => {
  const gw = await startInProcessGateway(config, { share: { rateCounter: full } });
  t.teardown(() => gw.stop());
  const res = await ask(gw.url);
  t.equal(res.status, 429);
  t.match(await res.text(), /concurrent requests \(concurrency\)/);
});
