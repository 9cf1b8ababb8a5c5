// The gateway configs that `npm run bench:ledger` and bench/ledger-paired.ts compare, and the OTLP
// sink their traced variants export to.
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { polygateConfig } from './paths.ts';

/** An OTLP/HTTP sink: takes every export and answers 200, as a collector would. */
export async function startOtlpSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => sink.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`,
    exports: () => exports,
    close: () => new Promise((done) => sink.close(() => done())),
  };
}

/**
 * The config of a variant (`off`, `ledger`, `tracing@R`, `both@R`, R a sample_ratio or `default`;
 * a `before:` prefix is the caller's): the ledger (sqlite, every model priced, a budget on the key,
 * so each request is checked, priced and recorded) and/or traces exported to `sinkUrl`.
 */
export function ledgerVariantConfig(variant: string, mockUrl: string, sinkUrl: string): Record<string, unknown> {
  const [what, ratio] = variant.replace(/^before:/, '').split('@');
  if (!['off', 'ledger', 'tracing', 'both'].includes(what)) throw new Error(`unknown variant ${variant}`);
  const base = polygateConfig(mockUrl);
  const models = Object.keys(base.models as object);
  const dir = mkdtempSync(join(tmpdir(), `ledger-bench-${what}-`));
  const ledger = what === 'ledger' || what === 'both';
  const tracing = what === 'tracing' || what === 'both';
  return {
    ...base,
    storage: { driver: 'sqlite', path: join(dir, 'polygate.db') },
    usage: ledger
      ? {
          ledger: true,
          prices: { models: Object.fromEntries(models.map((m) => [m, { input: 3, output: 15 }])) },
          budgets: { bench: { usd_per_day: 1_000_000 } },
        }
      : { ledger: false },
    ...(tracing
      ? { tracing: { endpoint: sinkUrl, ...(ratio && ratio !== 'default' ? { sample_ratio: Number(ratio) } : {}) } }
      : {}),
  };
}
