// The upstream upload body is valid multipart/form-data of exactly the announced length, with the
// file's bytes streamed from disk unchanged.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { multipartBody } from '../../src/families/speech/multipart-body.ts';

const dir = mkdtempSync(join(tmpdir(), 'polygate-mp-test-'));
const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));
const path = join(dir, 'upload');
writeFileSync(path, bytes);

const collect = async (s: NodeJS.ReadableStream): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
};

t.test('a standard parser reads back every field and the file', async (t) => {
  const body = multipartBody(
    [
      ['model', 'whisper-1'],
      ['timestamp_granularities[]', 'word'],
      ['timestamp_granularities[]', 'segment'],
      ['prompt', 'Line one\r\nline "two"'],
    ],
    { field: 'file', path, filename: 'my "talk".mp3', mediaType: 'audio/mpeg', size: bytes.length },
  );
  const raw = await collect(body.stream());
  t.equal(raw.length, body.length, 'content-length is exact');
  const form = await new Request('http://x.invalid/', {
    method: 'POST',
    headers: { 'content-type': body.contentType },
    body: new Uint8Array(raw),
  }).formData();
  t.same(form.getAll('timestamp_granularities[]'), ['word', 'segment']);
  t.equal(form.get('prompt'), 'Line one\r\nline "two"');
  const file = form.get('file') as File;
  t.equal(file.type, 'audio/mpeg');
  t.equal(file.name, 'my "talk".mp3', 'quotes escaped on the wire, as browsers do, and read back');
  t.same(Buffer.from(await file.arrayBuffer()), bytes);
});

t.test('each stream() call is a fresh body (a fallback route sends it again)', async (t) => {
  const body = multipartBody([['model', 'm']], {
    field: 'file',
    path,
    filename: 'a.wav',
    mediaType: 'audio/wav',
    size: bytes.length,
  });
  const a = await collect(body.stream());
  const b = await collect(body.stream());
  t.same(a, b);
});
