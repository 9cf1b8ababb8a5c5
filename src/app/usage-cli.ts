// `npm run usage -- [--key ID] [--model M] [--provider P] [--since 7d|YYYY-MM-DD] [--until …]
//   [--group-by key,model] [--csv] [--url http://host:port] [--token T]`
// Prints usage and spend from a running gateway's admin API as a table. The URL and token come
// from the config file (GATEWAY_CONFIG or config/gateway.yaml: listen, admin.token) unless given;
// POLYGATE_ADMIN_TOKEN overrides the file's token.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfigFile } from '../infra/config/load-config.ts';
import type { Report } from '../services/usage/usage-report.ts';

const help = `Usage: npm run usage -- [options]

Prints usage and spend from a running gateway's admin API (GET /admin/usage).

Options:
  --key ID             only this key id
  --model NAME         only this client-facing model
  --provider NAME      only this provider
  --since 7d|DATE      first UTC day (default 7d: today and the six days before)
  --until DATE         last UTC day (default today)
  --group-by LIST      any of key,model,provider,day (default key,model,provider)
  --csv                CSV with every column instead of a table
  --url URL            the gateway (default: listen in the config)
  --token TOKEN        admin.token (default: POLYGATE_ADMIN_TOKEN, then the config)
  --config FILE        the config file (default: GATEWAY_CONFIG or config/gateway.yaml)
  -h, --help           this text

Columns "estimated" and "partial" count requests whose tokens polygate estimated in whole or in
part (docs/usage-and-tracing.md, "What is billed").
`;

const options = {
  options: {
    key: { type: 'string' },
    model: { type: 'string' },
    provider: { type: 'string' },
    since: { type: 'string', default: '7d' },
    until: { type: 'string' },
    'group-by': { type: 'string', default: 'key,model,provider' },
    csv: { type: 'boolean', default: false },
    url: { type: 'string' },
    token: { type: 'string' },
    config: { type: 'string', default: process.env.GATEWAY_CONFIG ?? 'config/gateway.yaml' },
    help: { type: 'boolean', short: 'h', default: false },
  },
} as const;

/** A bad option is the user's mistake: said in one line with the usage text, not a stack trace. */
function parsed(): ReturnType<typeof parseArgs<typeof options>>['values'] {
  try {
    return parseArgs(options).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${help}`);
    process.exit(2);
  }
}

const values = parsed();
if (values.help) {
  process.stdout.write(help);
  process.exit(0);
}

function target(): { url: string; token: string | undefined } {
  let url = values.url;
  let token = values.token ?? process.env.POLYGATE_ADMIN_TOKEN;
  if (url === undefined || token === undefined) {
    try {
      const c = loadConfigFile(values.config).config;
      url ??= `http://${c.listen.host}:${process.env.PORT ?? c.listen.port}`;
      token ??= c.admin.token;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      url ??= 'http://127.0.0.1:8080';
    }
  }
  return { url, token };
}

const { url, token } = target();
if (!token) {
  console.error('no admin token: set admin.token in the config, POLYGATE_ADMIN_TOKEN, or pass --token');
  process.exit(1);
}
const q = new URLSearchParams({
  since: values.since,
  group_by: values['group-by'],
  ...(values.csv ? { format: 'csv' } : {}),
});
for (const f of ['key', 'model', 'provider', 'until'] as const) if (values[f]) q.set(f, values[f]);
const res = await fetch(`${url}/admin/usage?${q}`, { headers: { authorization: `Bearer ${token}` } }).catch(
  (e: unknown) => {
    console.error(`cannot reach ${url}: ${(e as Error).message}`);
    process.exit(1);
  },
);
if (!res.ok) {
  console.error(`${res.status}: ${await res.text()}`);
  process.exit(1);
}
if (values.csv) {
  process.stdout.write(await res.text());
  process.exit(0);
}
const report = (await res.json()) as Report;
const cols = [
  ...report.group_by,
  'requests',
  'input_tokens',
  'output_tokens',
  'characters',
  'audio_seconds',
  'tasks',
  'web_search_requests',
  'web_fetch_requests',
  'estimated',
  'partial',
  'cost_usd',
];
const cell = (v: unknown, c: string): string => (c === 'cost_usd' ? `$${Number(v).toFixed(6)}` : String(v ?? ''));
const lines = [
  cols,
  ...report.rows.map((r) => cols.map((c) => cell((r as Record<string, unknown>)[c], c))),
  cols.map((c, i) =>
    i === 0
      ? 'total'
      : report.group_by.includes(c as never)
        ? ''
        : cell((report.totals as Record<string, unknown>)[c], c),
  ),
];
const widths = cols.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
console.log(`usage ${report.since} .. ${report.until} (UTC)`);
for (const [n, l] of lines.entries()) {
  console.log(l.map((v, i) => (i < report.group_by.length ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  '));
  if (n === 0 || n === lines.length - 2) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
