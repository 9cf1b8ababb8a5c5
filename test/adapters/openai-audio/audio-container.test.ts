// Uploads are judged by their bytes: each accepted container is recognized from real files, and
// look-alikes (ADTS AAC, text, images) are not taken for audio.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { extensionOf, sniffAudioContainer, sniffBytes } from '../../../adapters/openai-audio/index.ts';

const fixtures = join(import.meta.dirname, '../../fixtures/openai-audio');
const head = (file: string): Uint8Array => readFileSync(join(fixtures, file)).subarray(0, sniffBytes);

t.test('real files of each accepted container', async (t) => {
  t.equal(sniffAudioContainer(head('tone-0.3s.flac')), 'flac');
  t.equal(sniffAudioContainer(head('tone-0.3s.mp3')), 'mp3');
  t.equal(sniffAudioContainer(head('tone-0.3s.opus')), 'ogg');
  t.equal(sniffAudioContainer(head('tone-0.3s.wav')), 'wav');
  t.equal(sniffAudioContainer(head('tone-0.3s.m4a')), 'mp4');
  t.equal(sniffAudioContainer(head('tone-0.3s.webm')), 'webm');
});

t.test('an mp3 without an ID3 tag is found by its frame header', async (t) => {
  t.equal(sniffAudioContainer(Uint8Array.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0])), 'mp3');
});

t.test('an MPEG program stream is mpeg', async (t) => {
  t.equal(sniffAudioContainer(Uint8Array.from([0, 0, 1, 0xba, 0x44, 0, 4, 0])), 'mpeg');
});

t.test('not audio, or not an accepted container', async (t) => {
  t.equal(sniffAudioContainer(head('tone-0.3s.aac')), undefined, 'ADTS AAC is not in the accepted list');
  t.equal(sniffAudioContainer(head('tone-0.3s.pcm')), undefined, 'headerless PCM cannot be identified');
  t.equal(sniffAudioContainer(new TextEncoder().encode('hello, this is a text file')), undefined);
  t.equal(sniffAudioContainer(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), undefined, 'PNG');
  t.equal(sniffAudioContainer(new Uint8Array(0)), undefined, 'empty');
});

t.test('file names: the nine extensions, any case', async (t) => {
  for (const ext of ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm'])
    t.equal(extensionOf(`a.${ext.toUpperCase()}`), ext);
  t.equal(extensionOf('speech.aac'), undefined);
  t.equal(extensionOf('speech'), undefined);
  t.equal(extensionOf('mp3'), undefined, 'a bare name is not an extension');
});
