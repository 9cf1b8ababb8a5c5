// Issue #30, finding 4: the memory driver kept each row's JSON text and also the caller's `data`
// object beside it, so what it held was about twice what it counted (a Responses WebSocket's
// memory, bounded by the count, measured at 3x its bound). A row now keeps the text only.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { MemoryStore } from '../../src/infra/store/memory-store.ts';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

t.test("a stored document's object is not kept alive by the store", async (t) => {
  const store = new MemoryStore();
  const refs: WeakRef<object>[] = [];
  // Written each way a document can be: put, create, putCounted.
  await (async () => {
    const a = { text: 'a'.repeat(1000) };
    const b = { text: 'b'.repeat(1000) };
    const c = { text: 'c'.repeat(1000) };
    refs.push(new WeakRef(a), new WeakRef(b), new WeakRef(c));
    await store.put('ns', { id: 'a', workspace: 'w', data: a, dueAt: null });
    await store.create('ns', { id: 'b', workspace: 'w', data: b, dueAt: null });
    await store.putCounted('w', [{ ns: 'ns', doc: { id: 'c', workspace: 'w', data: c, dueAt: null } }], Infinity);
  })();
  // WeakRefs hold their target until the current job ends.
  await new Promise((r) => setImmediate(r));
  gc();
  t.same(
    refs.map((r) => r.deref() === undefined),
    [true, true, true],
    'every object written is collectable once the caller drops it',
  );
  t.same((await store.get<{ text: string }>('ns', 'c'))?.data, { text: 'c'.repeat(1000) }, 'the document reads back');
});
