// WAV durations come from the header, including files with extra chunks and streamed placeholders.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseWavHeader } from '../../src/families/speech/wav-header.ts';

const file = join(import.meta.dirname, '../fixtures/openai-audio/tone-0.3s.wav');

t.test('a real file: 0.3 s of 24 kHz mono 16-bit', async (t) => {
  const info = parseWavHeader(readFileSync(file), statSync(file).size);
  t.same(info, { sampleRate: 24000, channels: 1, bitsPerSample: 16, dataBytes: 14400, durationSeconds: 0.3 });
});

t.test('a LIST chunk before data, and a streamed 0xFFFFFFFF size', async (t) => {
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(1, 10);
  fmt.writeUInt32LE(16000, 12);
  fmt.writeUInt32LE(32000, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const list = Buffer.concat([
    Buffer.from('LIST', 'latin1'),
    Buffer.from([3, 0, 0, 0]),
    Buffer.from('abc\0', 'latin1'),
  ]);
  const data = Buffer.concat([Buffer.from('data', 'latin1'), Buffer.from([0xff, 0xff, 0xff, 0xff])]);
  const head = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'), fmt, list, data]);
  const info = parseWavHeader(head, head.length + 32000);
  t.equal(info?.durationSeconds, 1);
});

t.test('not a WAV', async (t) => {
  t.equal(parseWavHeader(Buffer.from('OggS and more bytes here'), 100), undefined);
});
