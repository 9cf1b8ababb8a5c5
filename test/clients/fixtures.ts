// Stored requests of real clients (test/clients/fixtures/<client>/<n>.json): written by the client
// suite (scripts/test-clients.ts --capture) and by test/clients/capture-sdks.ts, replayed by
// test/clients/replay.test.ts. Secrets are redacted; the body is kept exactly as sent.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Captured } from './capture-proxy.ts';

export type Fixture = {
  client: string;
  version: string;
  /** The route the request was captured on (what the emulator behind it spoke). */
  route: string;
  /** The client-facing model name the client was told to use. */
  model: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, for reading; replays send `raw` when present. */
  body: unknown;
  /** The body as sent, kept only when re-serialising `body` would not give the same bytes. */
  raw?: string;
};

export const fixturesDir = join(import.meta.dirname, 'fixtures');

export function toFixture(
  c: Captured,
  meta: { client: string; version: string; route: string; model: string },
): Fixture {
  let body: unknown = c.body === '' ? undefined : c.body;
  try {
    if (c.body !== '') body = JSON.parse(c.body);
  } catch {
    // not JSON: kept as text
  }
  const same = body === undefined || (typeof body !== 'string' && JSON.stringify(body) === c.body);
  return { ...meta, method: c.method, path: c.path, headers: c.headers, body, ...(same ? {} : { raw: c.body }) };
}

/** The exact bytes the client sent. */
export const rawBody = (f: Fixture): string | undefined =>
  f.raw ?? (f.body === undefined ? undefined : typeof f.body === 'string' ? f.body : JSON.stringify(f.body));

export function loadFixtures(): Array<Fixture & { file: string }> {
  const out: Array<Fixture & { file: string }> = [];
  for (const client of readdirSync(fixturesDir, { withFileTypes: true })) {
    if (!client.isDirectory()) continue;
    for (const name of readdirSync(join(fixturesDir, client.name))
      .filter((n) => n.endsWith('.json'))
      .sort((a, b) => parseInt(a) - parseInt(b))) {
      const file = join(client.name, name);
      out.push({ ...(JSON.parse(readFileSync(join(fixturesDir, file), 'utf8')) as Fixture), file });
    }
  }
  return out;
}
