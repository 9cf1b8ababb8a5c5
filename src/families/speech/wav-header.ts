// Reads a RIFF/WAVE header (http://soundfile.sapp.org/doc/WaveFormat/) to learn how long the PCM
// data is, without decoding it. Chunks may come in any order and carry padding.
import { open } from 'node:fs/promises';

export type WavInfo = {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataBytes: number;
  durationSeconds: number;
};

export function parseWavHeader(buf: Buffer, fileSize: number): WavInfo | undefined {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE')
    return undefined;
  let at = 12;
  let fmt: { sampleRate: number; channels: number; bitsPerSample: number } | undefined;
  while (at + 8 <= buf.length) {
    const id = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= buf.length) {
      fmt = {
        channels: buf.readUInt16LE(at + 10),
        sampleRate: buf.readUInt32LE(at + 12),
        bitsPerSample: buf.readUInt16LE(at + 22),
      };
    } else if (id === 'data') {
      if (!fmt || fmt.sampleRate === 0 || fmt.channels === 0 || fmt.bitsPerSample === 0) return undefined;
      // Streamed WAVs carry a placeholder size (0 or 0xFFFFFFFF): trust the file's length instead.
      const rest = fileSize - (at + 8);
      const dataBytes = size === 0 || size === 0xffffffff || size > rest ? rest : size;
      const durationSeconds = dataBytes / (fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8));
      return { ...fmt, dataBytes, durationSeconds };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

export async function readWavInfo(path: string): Promise<WavInfo | undefined> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const buf = Buffer.alloc(Math.min(size, 4096));
    await fh.read(buf, 0, buf.length, 0);
    return parseWavHeader(buf, size);
  } finally {
    await fh.close();
  }
}
