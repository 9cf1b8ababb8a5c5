// newRequestId (src/infra/http/request-id.ts) stands in for crypto.randomUUID() as a request's id:
// the same format (a version 4 UUID, lowercase), and no repeat over many pools of random bytes.
import t from 'tap';
import { newRequestId } from '../../src/infra/http/request-id.ts';

t.test('ids are version 4 UUIDs and do not repeat', async (t) => {
  const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const seen = new Set<string>();
  let bad = 0;
  for (let i = 0; i < 20_000; i++) {
    const id = newRequestId();
    if (!v4.test(id) || seen.has(id)) bad++;
    seen.add(id);
  }
  t.equal(bad, 0, '20,000 ids (78 pools), each a new v4 UUID');
  // Every hex digit shows up in every random position: the bytes are used whole, not a part of them.
  const digits = new Set([...seen].flatMap((id) => [...id.replace(/-/g, '')]));
  t.equal(digits.size, 16);
});
