// The JSON body's text reader (src/infra/http/read-body-text.ts) against co-body's `text`, which
// read it before (same options: the limit, utf8, the declared length of a body sent as is): random
// bodies (broken UTF-8 sequences, BOMs, multi-byte characters split across chunks) in random
// chunks, declared lengths right and wrong, limits above and below: the same text, or an error
// with the same status, type and message (what src/infra/errors/to-gateway-error.ts answers by).
import t from 'tap';
import { PassThrough } from 'node:stream';
import coBody from 'co-body';
import { readBodyText } from '../../src/infra/http/read-body-text.ts';

function seeded(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) % n;
}

type Outcome = { text?: string; status?: unknown; type?: unknown; message?: string };

async function outcome(read: () => Promise<string>): Promise<Outcome> {
  try {
    return { text: await read() };
  } catch (e) {
    const err = e as { status?: unknown; type?: unknown; message?: string };
    return { status: err.status, type: err.type, message: err.message };
  }
}

/** A request-like stream that sends `body` in the given chunks, with a content-length header when declared. */
function sender(body: Buffer, cuts: number[], declared: string | undefined): PassThrough {
  const s = new PassThrough();
  (s as unknown as { headers: Record<string, string> }).headers =
    declared === undefined ? {} : { 'content-length': declared };
  let at = 0;
  const parts = [...cuts, body.length].map((end) => {
    const p = body.subarray(at, end);
    at = end;
    return p;
  });
  setImmediate(function next() {
    const p = parts.shift();
    if (p === undefined) return void s.end();
    if (p.length > 0) s.write(p);
    setImmediate(next);
  });
  return s;
}

t.test('the same text or the same error as co-body, for 1,500 random bodies', async (t) => {
  const rand = seeded(13);
  const pieces = [
    Buffer.from('{"a":"b"}'),
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from('é漢字🙂'),
    Buffer.from([0xc3]),
    Buffer.from([0xe6, 0xbc]),
    Buffer.from([0xf0, 0x9f, 0x99]),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(' \n\t'),
    Buffer.from('x'.repeat(40)),
  ];
  let differ = 0;
  const seen = new Set<string>();
  for (let i = 0; i < 1500; i++) {
    const body = Buffer.concat(Array.from({ length: rand(12) }, () => pieces[rand(pieces.length)]));
    const cuts = Array.from({ length: rand(4) }, () => rand(body.length + 1)).sort((a, b) => a - b);
    // Never 0: the config's minimum is 1024, and co-body read a limit of 0 as its default (1 MB).
    const limit = rand(4) === 0 ? 1 + rand(body.length + 1) : body.length + rand(50);
    const mode = rand(4);
    const declared = mode === 0 ? undefined : mode === 1 ? String(body.length + rand(3) - 1) : String(body.length);
    const ours = await outcome(() =>
      readBodyText(sender(body, cuts, declared), declared ? ~~declared : undefined, limit),
    );
    const theirs = await outcome(
      () => coBody.text(sender(body, cuts, declared) as never, { limit, encoding: 'utf8' }) as Promise<string>,
    );
    seen.add(theirs.type === undefined ? 'text' : String(theirs.type));
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      differ++;
      if (differ < 4)
        t.same(ours, theirs, `body ${i}: ${body.toString('hex')}, cuts ${cuts}, limit ${limit}, declared ${declared}`);
    }
  }
  t.equal(differ, 0, 'no body read differently');
  t.same([...seen].sort(), ['entity.too.large', 'request.size.invalid', 'text'], 'texts and both errors were compared');
});

t.test('a stream that errors rejects with its error; an aborted request is a 400', async (t) => {
  const s = new PassThrough();
  const boom = new Error('not gzip');
  setImmediate(() => s.destroy(boom));
  await t.rejects(readBodyText(s, undefined, 100), boom);
  const r = new PassThrough();
  setImmediate(() => r.emit('aborted'));
  const ours = await outcome(() => readBodyText(r, undefined, 100));
  const q = new PassThrough();
  (q as unknown as { headers: object }).headers = {};
  setImmediate(() => q.emit('aborted'));
  const theirs = await outcome(() => coBody.text(q as never, { limit: 100, encoding: 'utf8' }) as Promise<string>);
  t.same(ours, theirs, 'the same error as co-body');
  t.equal(ours.status, 400);
});
