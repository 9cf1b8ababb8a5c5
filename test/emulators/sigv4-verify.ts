// AWS Signature Version 4 verification, written from AWS's specification
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html) with node:crypto
// only, so it checks the AWS SDK's signing rather than repeating it. Checked against AWS's
// published test vectors in sigv4-verify.test.ts.
import { createHash, createHmac } from 'node:crypto';

export type SignedRequest = {
  method: string;
  /** The path and query exactly as they arrived (already URI-encoded once). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
};

export type Verdict =
  | { ok: true; accessKeyId: string; region: string; service: string }
  | { ok: false; type: 'MissingAuthenticationToken' | 'UnrecognizedClient' | 'InvalidSignature'; message: string };

const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, s: string): Buffer => createHmac('sha256', key).update(s).digest();
/** RFC 3986 encoding, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** For every service but S3 each path segment is encoded again, on top of the encoding it came with. */
export function canonicalUri(rawPath: string): string {
  return rawPath
    .split('/')
    .map((seg) => rfc3986(seg))
    .join('/');
}

function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [k, v = ''] = pair.split('=', 2);
      return [rfc3986(decodeURIComponent(k)), rfc3986(decodeURIComponent(v))];
    })
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

const headerValue = (v: string | string[] | undefined): string =>
  (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');

/** The signature of a request under `secret`, with the scope and headers its Authorization names. */
export function signatureOf(
  r: SignedRequest,
  secret: string,
  scope: { date: string; region: string; service: string },
  signedHeaders: string[],
  amzDate: string,
): string {
  const [path, query = ''] = r.url.split('?', 2);
  const canonicalHeaders = signedHeaders.map((h) => `${h}:${headerValue(r.headers[h])}\n`).join('');
  const canonicalRequest = [
    r.method,
    canonicalUri(path),
    canonicalQuery(query),
    canonicalHeaders,
    signedHeaders.join(';'),
    sha256(r.body),
  ].join('\n');
  const credentialScope = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, credentialScope, sha256(canonicalRequest)].join('\n');
  const kDate = hmac(`AWS4${secret}`, scope.date);
  const kSigning = hmac(hmac(hmac(kDate, scope.region), scope.service), 'aws4_request');
  return hmac(kSigning, stringToSign).toString('hex');
}

/** Verifies a request's Authorization header against the secrets of known access key ids. */
export function verifySigV4(r: SignedRequest, secrets: ReadonlyMap<string, string>): Verdict {
  const auth = headerValue(r.headers.authorization);
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return { ok: false, type: 'MissingAuthenticationToken', message: 'Missing Authentication Token' };
  const [, accessKeyId, date, region, service, signed, signature] = m;
  const secret = secrets.get(accessKeyId);
  if (secret === undefined)
    return { ok: false, type: 'UnrecognizedClient', message: 'The security token included in the request is invalid.' };
  const amzDate = headerValue(r.headers['x-amz-date']);
  const expected = signatureOf(r, secret, { date, region, service }, signed.split(';'), amzDate);
  if (expected !== signature || !amzDate.startsWith(date))
    return {
      ok: false,
      type: 'InvalidSignature',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  return { ok: true, accessKeyId, region, service };
}
