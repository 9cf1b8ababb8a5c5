// A multipart/form-data request body (https://www.rfc-editor.org/rfc/rfc7578) streamed from disk:
// the file is read in chunks while it is sent, never held whole in memory, and the exact length
// is known up front so the upstream gets a Content-Length.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

export type MultipartFile = { field: string; path: string; filename: string; mediaType: string; size: number };

export type MultipartBody = { contentType: string; length: number; stream: () => Readable };

/** Quotes a header parameter the way browsers do (WHATWG HTML, "multipart/form-data encoding"). */
const quote = (s: string): string => s.replace(/\r\n|\r|\n/g, '%0D%0A').replace(/"/g, '%22');

export function multipartBody(fields: Array<[string, string]>, file: MultipartFile): MultipartBody {
  const boundary = `----polygate${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    fields
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"\r\n\r\n${v}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.field)}"; filename="${quote(file.filename)}"\r\n` +
      `Content-Type: ${file.mediaType.replace(/[\r\n]/g, '') || 'application/octet-stream'}\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + file.size + tail.length,
    // A fresh stream per call: a fallback route sends the same body again.
    stream: () =>
      Readable.from(
        (async function* () {
          yield head;
          yield* createReadStream(file.path, { highWaterMark: 64 * 1024 });
          yield tail;
        })(),
        { objectMode: false },
      ),
  };
}
