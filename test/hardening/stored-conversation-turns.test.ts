// Finding 6 with the chain cap raised (bench/attack-suite.ts 6'): continuing a chain of 40 turns of
// 0.9 MB held the event loop for 700 ms, because the sqlite driver reads synchronously and the
// whole chain was read and parsed in one go. Now the walk gives the loop a turn after each stored
// turn it reads. Asserted by counting turns of a ticker during the walk: no timing.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ResponseRepository, type StoredResponse } from '../../src/services/sessions/response-repository.ts';
import { SqliteStore } from '../../src/infra/store/sqlite-store.ts';
import { onEveryLoopTurn } from '../helpers/loop-turns.ts';

t.test('reading a 40-turn chain lets the event loop turn between stored turns', async (t) => {
  const store = new SqliteStore(join(mkdtempSync(join(tmpdir(), 'polygate-walk-')), 'walk.db'));
  t.teardown(() => store.close());
  const repo = new ResponseRepository(store);
  let previousId: string | null = null;
  for (let i = 0; i < 40; i++) {
    const id = `resp_${i}`;
    const record = {
      id,
      model: 'echo',
      provider: 'echo',
      upstreamModel: 'echo-1',
      status: 'completed',
      createdAt: 1,
      response: { id, output: [] },
      inputItems: [],
    } satisfies StoredResponse;
    const messages = [
      { role: 'user' as const, parts: [{ type: 'text' as const, text: `${i} ${'y'.repeat(20_000)}` }] },
    ];
    await repo.save('ws1', record, { previousId, messages, producers: [''], chainChars: 0, length: i + 1 });
    previousId = id;
  }
  let ticks = 0;
  const stop = onEveryLoopTurn(() => ticks++);
  const conversation = await repo.conversation('resp_39', 'ws1', (await repo.get('resp_39', 'ws1'))!);
  stop();
  t.equal(conversation.messages.length, 40, 'the whole chain is read');
  t.ok(ticks >= 39, `the loop turned ${ticks} times during the walk of 40 turns`);
});
