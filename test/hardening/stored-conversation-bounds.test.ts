// Finding: 40 chained previous_response_id requests of 0.9 MB grew sqlite by 1.69 GB, because each
// stored response held the whole conversation so far, and the 40th write blocked the event loop
// for 1.2 s. Now a response stores only what it added (a turn), and a chain that would grow past
// limits.max_conversation_bytes gets a 400 naming previous_response_id.
import t from 'tap';
import OpenAI from 'openai';
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { ResponseRepository } from '../../src/services/sessions/response-repository.ts';
import { ResponsesSession } from '../../src/services/sessions/responses-session.ts';
import { openaiResponses } from '../../adapters/openai-responses/index.ts';
import type { Route } from '../../src/services/routing/model-router.ts';
import { MemoryStore } from '../../src/infra/store/memory-store.ts';
import type { CountedDoc, Doc } from '../../src/infra/store/store.ts';
import { startInProcessGateway } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

/** A store that counts the bytes written through it. */
class CountingStore extends MemoryStore {
  written = 0;
  override async put<T>(ns: string, doc: Doc<T>, opts?: { token?: string }): Promise<boolean> {
    this.written += JSON.stringify(doc.data).length;
    return super.put(ns, doc, opts);
  }
  override async putCounted(workspace: string, docs: CountedDoc[], limit: number): Promise<void> {
    for (const d of docs) this.written += JSON.stringify(d.doc.data).length;
    return super.putCounted(workspace, docs, limit);
  }
}

const route = { provider: 'echo', model: 'echo-1' } as Route;

/** One turn of a chain through the session, as the chat pipeline drives it; answers with `ok`. */
async function turn(
  repo: ResponseRepository,
  n: number,
  input: string,
  previous: string | undefined,
  maxChars = Infinity,
): Promise<string> {
  const session = new ResponsesSession(openaiResponses.conversation!, repo, 'ws1', () => undefined, maxChars);
  await session.prepareBody({ input });
  const request = {
    model: 'echo',
    system: [],
    messages: [{ role: 'user', parts: [{ type: 'text', text: input }] }],
    tools: [],
    extensions: previous ? { 'openai-responses': { previous_response_id: previous } } : {},
  } as unknown as ChatRequest;
  await session.prepareRequest(request);
  const id = `resp_${n}`;
  const output = [
    {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'ok', annotations: [] }],
    },
  ];
  await session.completed({
    request,
    route,
    body: { id, object: 'response', status: 'completed', model: 'echo', output },
    result: { parts: [{ type: 'text', text: 'ok' }] },
  });
  return id;
}

t.test('a chain of 30 turns of 20 KB writes the same amount per turn, not the conversation again', async (t) => {
  const store = new CountingStore();
  const repo = new ResponseRepository(store);
  const perTurn: number[] = [];
  let previous: string | undefined;
  for (let i = 0; i < 30; i++) {
    const before = store.written;
    previous = await turn(repo, i, `${i} ${'x'.repeat(20_000)}`, previous);
    perTurn.push(store.written - before);
  }
  t.ok(perTurn[29] < perTurn[1] * 1.1, `turn 2 wrote ${perTurn[1]} bytes, turn 30 ${perTurn[29]}`);
  t.ok(store.written < 30 * 4 * 20_000, `${store.written} bytes in all`);
  const conversation = await repo.conversation(previous!, 'ws1', (await repo.get(previous!, 'ws1'))!);
  t.equal(conversation.messages.length, 60, 'the whole conversation is read back');
  t.match(conversation.messages[2], { role: 'user', parts: [{ type: 'text', text: /^1 x/ }] });
});

t.test('a chain past the cap gets a 400 naming previous_response_id', async (t) => {
  const repo = new ResponseRepository(new MemoryStore());
  let previous: string | undefined;
  let refused: unknown;
  for (let i = 0; i < 10 && !refused; i++) {
    previous = await turn(repo, i, 'y'.repeat(20_000), previous, 100_000).catch((e: unknown) => {
      refused = e;
      return previous;
    });
  }
  t.type(refused, GatewayError);
  t.equal((refused as GatewayError).status, 400);
  t.equal((refused as GatewayError).param, 'previous_response_id');
});

t.test('through a running gateway: the SDK sees the 400 and a new chain still works', async (t) => {
  const gw = await startInProcessGateway(
    testConfig({
      storage: { driver: 'sqlite', path: './data/polygate.db' },
      limits: { max_conversation_bytes: 100_000 },
    }),
  );
  t.teardown(() => gw.stop());
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  let previous: string | undefined;
  let err: unknown;
  for (let i = 0; i < 10 && !err; i++) {
    await client.responses
      .create({
        model: 'echo',
        input: `${i} ${'z'.repeat(20_000)}`,
        ...(previous ? { previous_response_id: previous } : {}),
      })
      .then(
        (r) => (previous = r.id),
        (e: unknown) => (err = e),
      );
  }
  t.type(err, OpenAI.BadRequestError);
  t.equal((err as InstanceType<typeof OpenAI.BadRequestError>).param, 'previous_response_id');
  t.match((err as Error).message, /max_conversation_bytes/);
  const fresh = await client.responses.create({ model: 'echo', input: 'a new conversation' });
  t.equal(fresh.output_text, 'a new conversation');
});
