import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { Ajv } from 'ajv';
import type { ErrorObject } from 'ajv';
import schema from '../../../config/gateway.schema.json' with { type: 'json' };
import type { GatewayConfig, LoadedConfig } from './gateway-config.ts';
import { interpolateEnv } from './interpolate-env.ts';
import { isGlob, servingRoutes } from './serving-routes.ts';
import { defaultBreaker, defaultRetries, defaultUpstream } from './upstream-defaults.ts';
import { tracingDefaults, usageDefaults, usageProblems, usageWarnings } from './usage-config.ts';
import { hostedToolsDefaults, hostedToolsProblems } from './hosted-tools-config.ts';

/** Every problem of a refused file, each naming its path (and line where known). */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`invalid config ${file}:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile<GatewayConfig>(schema);

export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, [`cannot read file: ${(e as Error).message}`]);
  }
  return parseConfig(text, file, env);
}

/** Provider settings that hold a credential: unset or empty, the provider is disabled. */
const credentialFields = [
  'api_key',
  'access_key_id',
  'secret_access_key',
  'credentials_file',
  'client_secret',
] as const;

export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return `${pos ? `line ${pos.line}, column ${pos.col}: ` : ''}${e.message.split('\n')[0]}`;
      }),
    );
  }
  const unsetByPath = new Map<string, string[]>();
  const raw = interpolateTree(doc.toJS() as unknown, '', env, unsetByPath);
  if (!validate(raw)) {
    // Alternatives (oneOf, if/then) report each branch; keep the one sentence an operator needs.
    const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && !e.schemaPath.includes('/oneOf/'));
    throw new ConfigError(file, [...new Set(errors.map((e) => describe(e, doc, lines)))]);
  }
  const config = withDefaults(raw);
  const problems = crossCheck(config);
  if (problems.length > 0) throw new ConfigError(file, problems);

  const disabledProviders = new Map<string, string>();
  const warnings: string[] = [];
  for (const [name, p] of Object.entries(config.providers)) {
    // A credential (the key, or Bedrock's static AWS keys) whose variable is unset disables the provider.
    const field = credentialFields.find((f) => unsetByPath.has(`/providers/${name}/${f}`) || p[f] === '');
    const missing = field && unsetByPath.get(`/providers/${name}/${field}`);
    if (field) {
      const why = missing ? `environment variable ${missing.join(', ')} is unset` : `${field} is empty`;
      disabledProviders.set(name, why);
      warnings.push(`provider '${name}' is disabled: ${why}`);
    }
  }
  for (const [path, names] of unsetByPath) {
    if (!/^\/providers\/[^/]+\/(api_key|access_key_id|secret_access_key|credentials_file|client_secret)$/.test(path))
      warnings.push(`${path}: environment variable ${names.join(', ')} is unset; used ''`);
  }
  for (const [model, m] of Object.entries(config.models)) {
    const serving = servingRoutes(m.routes, disabledProviders);
    if (serving.length === 0)
      warnings.push(`model '${model}' has no enabled provider; it answers 503 until one is configured`);
    else if (serving.every((r) => r.standby)) {
      warnings.push(
        `model '${model}' is answered by its standby route (${serving.map((r) => r.provider).join(', ')}) until one of its other providers is configured`,
      );
    }
  }
  warnings.push(...usageWarnings(config.usage));
  return { config, disabledProviders, warnings };
}

function interpolateTree(v: unknown, path: string, env: NodeJS.ProcessEnv, unset: Map<string, string[]>): unknown {
  if (typeof v === 'string') {
    const r = interpolateEnv(v, env);
    if (r.unset.length > 0) unset.set(path, r.unset);
    return r.value;
  }
  if (Array.isArray(v)) return v.map((x, i) => interpolateTree(x, `${path}/${i}`, env, unset));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = interpolateTree(x, `${path}/${k}`, env, unset);
    return out;
  }
  return v;
}

function withDefaults(c: GatewayConfig): GatewayConfig {
  // ajv's useDefaults fills defaults only inside objects that exist; sections may be absent.
  return {
    ...c,
    listen: {
      host: c.listen?.host ?? '127.0.0.1',
      port: c.listen?.port ?? 8080,
      headers_timeout_ms: c.listen?.headers_timeout_ms ?? 20_000,
      body_timeout_ms: c.listen?.body_timeout_ms ?? 60_000,
      accept_queues: c.listen?.accept_queues ?? 16,
      // Unset: main.ts sizes it from the process's descriptor limit.
      ...(c.listen?.max_connections !== undefined ? { max_connections: c.listen.max_connections } : {}),
    },
    storage: c.storage ?? { driver: 'sqlite', path: './data/polygate.db' },
    outbound: { allow_private_addresses: c.outbound?.allow_private_addresses ?? false },
    limits: {
      max_body_bytes: c.limits?.max_body_bytes ?? 32 * 1024 * 1024,
      max_upload_bytes: c.limits?.max_upload_bytes ?? 25 * 1024 * 1024,
      max_json_depth: c.limits?.max_json_depth ?? 128,
      max_json_items: c.limits?.max_json_items ?? 100_000,
      max_json_keys: c.limits?.max_json_keys ?? 10_000,
      max_conversation_bytes: c.limits?.max_conversation_bytes ?? 8 * 1024 * 1024,
      max_workspace_stored_bytes: c.limits?.max_workspace_stored_bytes ?? 1024 * 1024 * 1024,
    },
    upstream: {
      connect_timeout_ms: c.upstream?.connect_timeout_ms ?? 10_000,
      first_byte_timeout_ms: c.upstream?.first_byte_timeout_ms ?? 120_000,
      idle_timeout_ms: c.upstream?.idle_timeout_ms ?? 120_000,
      max_connections: c.upstream?.max_connections ?? 4096,
      max_answer_bytes: c.upstream?.max_answer_bytes ?? defaultUpstream.max_answer_bytes,
      retries: { ...defaultRetries, ...c.upstream?.retries },
      breaker: { ...defaultBreaker, ...c.upstream?.breaker },
    },
    reload: { watch: c.reload?.watch ?? true, debounce_ms: c.reload?.debounce_ms ?? 250 },
    responses_websocket: {
      max_message_bytes: c.responses_websocket?.max_message_bytes ?? 32 * 1024 * 1024,
      max_socket_bytes: c.responses_websocket?.max_socket_bytes ?? 64 * 1024 * 1024,
      idle_timeout_ms: c.responses_websocket?.idle_timeout_ms ?? 600_000,
      ping_interval_ms: c.responses_websocket?.ping_interval_ms ?? 30_000,
      max_concurrent_responses: c.responses_websocket?.max_concurrent_responses ?? 4,
      max_connection_ms: c.responses_websocket?.max_connection_ms ?? 3_600_000,
      max_queued_per_lane: c.responses_websocket?.max_queued_per_lane ?? 16,
      max_queued_responses: c.responses_websocket?.max_queued_responses ?? 64,
      max_queued_bytes: c.responses_websocket?.max_queued_bytes ?? 64 * 1024 * 1024,
      max_total_bytes: c.responses_websocket?.max_total_bytes ?? 512 * 1024 * 1024,
    },
    shutdown_deadline_ms: c.shutdown_deadline_ms ?? 30_000,
    metrics: c.metrics ?? {},
    log: { level: c.log?.level ?? 'info', content: c.log?.content ?? false },
    tune: {
      ...c.tune,
      music_models: c.tune?.music_models ?? ['tune-v3-0', 'tune-v3-5'],
      default_model: c.tune?.default_model ?? 'tune-v3-0',
      poll_interval_ms: c.tune?.poll_interval_ms ?? 3000,
      task_deadline_s: c.tune?.task_deadline_s ?? 900,
      task_lease_ms: c.tune?.task_lease_ms ?? 120_000,
      sandbox_delay_ms: c.tune?.sandbox_delay_ms ?? 4000,
      callback: {
        secret: c.tune?.callback?.secret ?? '',
        max_attempts: c.tune?.callback?.max_attempts ?? 8,
        backoff_ms: c.tune?.callback?.backoff_ms ?? 2000,
        max_backoff_ms: c.tune?.callback?.max_backoff_ms ?? 600_000,
        timeout_ms: c.tune?.callback?.timeout_ms ?? 10_000,
      },
    },
    usage: usageDefaults(c.usage),
    admin: { token: c.admin?.token || undefined, wrong_tokens_per_minute: c.admin?.wrong_tokens_per_minute ?? 10 },
    tracing: tracingDefaults(c.tracing),
    search_backends: c.search_backends ?? {},
    hosted_tools: hostedToolsDefaults(c.hosted_tools),
  };
}

/** Rules JSON Schema cannot say: references between sections. */
function crossCheck(c: GatewayConfig): string[] {
  const problems: string[] = [];
  for (const [model, m] of Object.entries(c.models)) {
    m.routes.forEach((r, i) => {
      if (!c.providers[r.provider])
        problems.push(`/models/${model}/routes/${i}/provider: unknown provider '${r.provider}'`);
    });
    const stars = isGlob(model) ? (model.match(/\*/g) ?? []).length : 0;
    m.routes.forEach((r, i) => {
      for (const [, k] of (r.model ?? '').matchAll(/\{([^}]*)\}/g)) {
        if (k === 'model' || (/^[1-9]$/.test(k) && Number(k) <= stars)) continue;
        const known =
          stars > 0
            ? `{model}, or {1} to {${Math.min(stars, 9)}} for this glob's *`
            : '{model} (only a glob entry has {1}…)';
        problems.push(`/models/${model}/routes/${i}/model: unknown placeholder {${k}}; use ${known}`);
      }
    });
    if (m.strategy === 'weighted' && m.routes.some((r) => r.weight === undefined)) {
      problems.push(`/models/${model}: strategy 'weighted' needs a weight on every route`);
    }
  }
  problems.push(...usageProblems(c));
  problems.push(...hostedToolsProblems(c));
  if (c.storage.driver === 'redis' && !c.storage.url)
    problems.push(`/storage/url: required with driver 'redis' (redis://host:port/db)`);
  const seen = new Set<string>();
  c.keys.forEach((k, i) => {
    if (seen.has(k.id)) problems.push(`/keys/${i}/id: duplicate key id '${k.id}'`);
    seen.add(k.id);
  });
  return problems;
}

function describe(e: ErrorObject, doc: Document, lines: LineCounter): string {
  let path = e.instancePath || '/';
  let msg = e.message ?? 'invalid';
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    path = `${e.instancePath}/${extra}`;
    msg = 'unknown field';
  } else if (e.keyword === 'enum') {
    msg = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (e.keyword === 'oneOf') {
    msg = 'needs exactly one of the alternatives (for a key: secret or secret_sha256)';
  } else if (e.keyword === 'required') {
    msg = `missing required field '${(e.params as { missingProperty: string }).missingProperty}'`;
  }
  const line = lineOf(doc, lines, path);
  return `${path}${line ? ` (line ${line})` : ''}: ${msg}`;
}

function lineOf(doc: Document, lines: LineCounter, pointer: string): number | undefined {
  const segs = pointer
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = doc.contents;
  let last: Node | undefined;
  for (const seg of segs) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) break;
      last = (pair.key as Node) ?? last;
      node = pair.value;
    } else if (isSeq(node)) {
      node = node.items[Number(seg)];
    } else break;
    if (node && typeof node === 'object' && 'range' in node) last = node as Node;
  }
  const offset = last?.range?.[0];
  return offset === undefined ? undefined : lines.linePos(offset).line;
}
