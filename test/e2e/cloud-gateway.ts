// The gateway the cloud e2e tests (Azure OpenAI, Vertex, Bedrock: issue #26) run against, and what
// each reads of it afterwards: the models listed, the ledger's rows, the metrics and the log, where
// no credential may appear. In-process (test/helpers/in-process-app.ts), with the admin API on and
// the ledger flushed every 50 ms so a test reads its own requests' usage.
import type { Test } from 'tap';
import type { Emulator, RecordedRequest } from '../emulators/emulator-types.ts';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process-app.ts';
import { testConfig, TEST_KEY, type Gateway } from '../helpers/start-gateway.ts';
import { ADMIN_TOKEN, usage, type Row } from '../usage/usage-helpers.ts';
import { allDrivers } from './matrix/drivers/all-drivers.ts';
import type { Driver } from './matrix/drivers/driver.ts';

type Price = { input: number; output: number };

/** A gateway for these providers and models (`prices` by client-facing model), and the four families' drivers. */
export async function cloudGateway(
  t: Test,
  o: { providers: Record<string, unknown>; models: Record<string, unknown>; prices?: Record<string, Price> },
): Promise<{ app: InProcessApp; drivers: Driver[] }> {
  const app = await startInProcessApp(
    t,
    testConfig({
      providers: o.providers,
      models: o.models,
      admin: { token: ADMIN_TOKEN },
      usage: { flush_interval_ms: 50, prices: { models: o.prices ?? {} } },
    }),
  );
  return { app, drivers: allDrivers(app.url) };
}

/** The request the emulator got last. */
export const lastRequest = (emu: Pick<Emulator, 'requests'>): RecordedRequest => emu.requests[emu.requests.length - 1];

/** The ledger's rows by provider once each of `providers` has one (or as they are after 5 s, for the assertions to show). */
export async function providerRows(app: { url: string }, providers: readonly string[]): Promise<Row[]> {
  let rows: Row[] = [];
  for (let i = 0; i < 50 && !providers.every((p) => rows.some((r) => r.provider === p)); i++) {
    await new Promise((r) => setTimeout(r, 100));
    rows = (await usage({ url: app.url } as Gateway, 'group_by=provider')).rows;
  }
  return rows;
}

/** Each of `providers` has a ledger row with input and output tokens, and a cost. */
export async function pricedInLedger(t: Test, app: { url: string }, providers: readonly string[]): Promise<void> {
  const rows = await providerRows(app, providers);
  for (const p of providers) {
    const row = rows.find((r) => r.provider === p);
    t.ok(row && Number(row.input_tokens) > 0 && Number(row.output_tokens) > 0, `${p}: tokens`);
    t.ok(row && row.cost_nano > 0, `${p}: cost`);
  }
}

/** `/v1/models` lists each of `models`. */
export async function listsModels(t: Test, app: { url: string }, models: readonly string[]): Promise<void> {
  const res = await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
  for (const m of models) t.ok(ids.includes(m), m);
}

export const metricsOf = async (app: { url: string }): Promise<string> => (await fetch(`${app.url}/metrics`)).text();

/** None of `secrets` in /metrics nor in the log. */
export async function secretsNowhere(
  t: Test,
  app: InProcessApp,
  secrets: ReadonlyArray<string | RegExp>,
): Promise<void> {
  const metrics = await metricsOf(app);
  const logs = JSON.stringify(app.logs());
  for (const secret of secrets) {
    t.notMatch(metrics, secret, 'not in the metrics');
    t.notMatch(logs, secret, 'not in the log');
  }
}
