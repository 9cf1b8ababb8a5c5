// Which upload formats the `openai-audio` format accepts (spec, "Transcription form fields": flac, mp3, mp4, mpeg,
// mpga, m4a, ogg, wav, webm), judged by the file name and by the file's own first bytes: a name
// is a claim, the magic bytes are the evidence (https://en.wikipedia.org/wiki/List_of_file_signatures).
import type { AudioContainer } from '../../src/ir/transcription.ts';

export const uploadExtensions = ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm'] as const;
export type UploadExtension = (typeof uploadExtensions)[number];

/** How many leading bytes `sniffAudioContainer` needs to decide. */
export const sniffBytes = 64;

export function extensionOf(filename: string): UploadExtension | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = filename.slice(dot + 1).toLowerCase();
  return (uploadExtensions as readonly string[]).includes(ext) ? (ext as UploadExtension) : undefined;
}

const ascii = (head: Uint8Array, at: number, text: string): boolean => {
  if (head.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (head[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/** ID3v2 tags (mp3) start "ID3" and carry a syncsafe size; the audio proper follows them. */
function id3Length(head: Uint8Array): number {
  if (!ascii(head, 0, 'ID3') || head.length < 10) return 0;
  const footer = head[5] & 0x10 ? 10 : 0;
  return 10 + footer + ((head[6] & 0x7f) << 21) + ((head[7] & 0x7f) << 14) + ((head[8] & 0x7f) << 7) + (head[9] & 0x7f);
}

/**
 * An MPEG audio frame header: 11 sync bits, a version other than "reserved", a layer other than
 * "reserved" (layer bits 00 with sync is ADTS AAC, which the spec does not accept), and a bitrate
 * index other than 1111.
 */
function isMpegAudioFrame(head: Uint8Array, at: number): boolean {
  if (head.length < at + 3) return false;
  const b1 = head[at + 1];
  const b2 = head[at + 2];
  return head[at] === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x18) !== 0x08 && (b1 & 0x06) !== 0 && (b2 & 0xf0) !== 0xf0;
}

/**
 * The container the bytes are, or undefined when they are none of the accepted ones. `head` is
 * the file's first bytes (at least `sniffBytes` when the file is that long). An ID3 tag longer
 * than `head` is taken as mp3: only mp3 files carry one.
 */
export function sniffAudioContainer(head: Uint8Array): AudioContainer | undefined {
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (ascii(head, 4, 'ftyp')) return 'mp4';
  // MPEG program stream (pack header) or a bare video elementary stream: `.mpeg` files.
  if (head.length >= 4 && head[0] === 0 && head[1] === 0 && head[2] === 1 && (head[3] === 0xba || head[3] === 0xb3))
    return 'mpeg';
  const tag = id3Length(head);
  if (tag > 0) {
    if (tag >= head.length) return 'mp3';
    // After the tag: FLAC files sometimes carry ID3 too; otherwise an MPEG audio frame.
    if (ascii(head, tag, 'fLaC')) return 'flac';
    return isMpegAudioFrame(head, tag) ? 'mp3' : undefined;
  }
  return isMpegAudioFrame(head, 0) ? 'mp3' : undefined;
}
