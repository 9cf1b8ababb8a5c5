// Turns stored before reasoning origins were format names ('anthropic', 'openai', none) still
// continue: read back, their reasoning names today's format (src/ir/wire-format.ts), so the
// encoder of that format replays it and no other does.
import t from 'tap';
import type { Message } from '../../src/ir/chat-request.ts';
import { ResponseRepository, type StoredResponse } from '../../src/services/sessions/response-repository.ts';
import { MemoryStore } from '../../src/infra/store/memory-store.ts';

const record = (id: string): StoredResponse => ({
  id,
  model: 'm',
  provider: 'p',
  upstreamModel: 'u',
  status: 'completed',
  createdAt: 0,
  response: { id, output: [] },
  inputItems: [],
});

t.test('legacy origins in stored turns read as format names', async (t) => {
  const repo = new ResponseRepository(new MemoryStore());
  // As an older polygate wrote them: vendor names, or no origin at all.
  const legacy = [
    { type: 'reasoning', text: 'a', signature: 'sig', origin: 'anthropic' },
    { type: 'reasoning', text: 'b', signature: 'rs_1', encrypted: 'enc', origin: 'openai' },
    { type: 'reasoning', text: 'c', origin: 'echo' },
    { type: 'reasoning', text: 'd' },
    { type: 'reasoning', text: 'e', signature: 'g', origin: 'gemini' },
    { type: 'text', text: 'answer' },
  ];
  const messages = [
    { role: 'user', parts: [{ type: 'text', text: 'q' }] },
    { role: 'assistant', parts: legacy },
  ] as unknown as Message[];
  await repo.save('w', record('resp_1'), {
    previousId: null,
    messages,
    producers: ['', 'p'],
    chainChars: 10,
    length: 1,
  });
  const read = await repo.conversation('resp_1', 'w', record('resp_1'));
  const origins = read.messages[1].parts.flatMap((p) => (p.type === 'reasoning' ? [p.origin] : []));
  t.same(origins, ['anthropic-messages', 'openai-responses', 'polygate', 'polygate', 'gemini']);
  t.same(read.messages[0], messages[0], 'messages without reasoning are as stored');
});
