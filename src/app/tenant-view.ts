// A tenant's own view (issue #25 item 4, docs/console.md "Tenant view"): `GET /v1/me` with a
// client key answers that key's id, workspace, models, limits, budgets (used, remaining, reset
// time) and spend today — nothing about any other key — in the conventions of the family whose
// credential it came with: `x-goog-api-key` or `?key=` → Gemini; `x-api-key` or an
// `anthropic-version` header → Anthropic; otherwise (`Authorization: Bearer`) → OpenAI. Reads cost nothing, so a key over its budget or rate
// limit still reads it: that is when a developer needs to see why they were refused.
import { formatNamed, type FormatModule } from '../infra/formats/formats.ts';
import { toGatewayError } from '../infra/errors/to-gateway-error.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import { authenticateKey, isRefusal } from '../services/auth/runtime-keys.ts';
import type { ApiKey } from '../services/auth/key-ring.ts';
import { tenantFigures, type TenantFigures } from './tenant-budgets.ts';
import type { GatewayContext, GatewayRouter } from '../services/runtime/gateway-context.ts';

type Family = 'openai' | 'anthropic' | 'gemini';

const formatNames: Record<Family, string> = {
  openai: 'openai-chat',
  anthropic: 'anthropic-messages',
  gemini: 'gemini',
};

/** The family by the credential the client sent (the header its SDK sets). */
function familyOf(ctx: GatewayContext): Family {
  if (ctx.get('x-goog-api-key') || typeof ctx.query.key === 'string') return 'gemini';
  // Anthropic's SDK may send its key as a Bearer token; its `anthropic-version` header says who it is
  // (as on the shared /v1/models).
  if (ctx.get('x-api-key') || ctx.get('anthropic-version')) return 'anthropic';
  return 'openai';
}

type Info = { key: ApiKey; models: string[]; expiresAt: string | null; figures: TenantFigures };

function bodyOf(family: Family, i: Info): Record<string, unknown> {
  const { key, figures } = i;
  switch (family) {
    case 'openai':
    case 'anthropic':
      return {
        ...(family === 'openai' ? { object: 'api_key' } : { type: 'api_key' }),
        id: key.id,
        workspace: key.workspace,
        models: i.models,
        limits: key.limits,
        expires_at: i.expiresAt,
        budgets: figures.budgets,
        usage_today: figures.today,
      };
    case 'gemini':
      // Google's REST objects are camelCase and named by resource path.
      return {
        name: `apiKeys/${key.id}`,
        workspace: key.workspace,
        models: i.models,
        limits: key.limits,
        expireTime: i.expiresAt,
        budgets: figures.budgets.map((b) => ({
          scope: b.scope,
          period: b.period,
          limitUsd: b.limit_usd,
          limitTokens: b.limit_tokens,
          usedUsd: b.used_usd,
          usedTokens: b.used_tokens,
          remainingUsd: b.remaining_usd,
          remainingTokens: b.remaining_tokens,
          resetTime: b.resets_at,
        })),
        usageToday: figures.today && {
          date: figures.today.date,
          costUsd: figures.today.cost_usd,
          totalTokens: figures.today.tokens,
        },
      };
    default: {
      const never: never = family;
      return never;
    }
  }
}

async function me(ctx: GatewayContext, format: FormatModule, family: Family): Promise<void> {
  const state = ctx.state;
  const credential = format.credential(ctx.headers, ctx.query);
  const found = authenticateKey(state.runtime.keys, state.services.keys, credential);
  if (!found) throw new GatewayError('authentication', 'invalid or missing API key');
  if (isRefusal(found)) throw new GatewayError('authentication', found.refused);
  state.key = found;
  const stored = state.services.keys.get(found.id);
  const fromFile = state.runtime.config.keys.find((k) => k.id === found.id);
  const now = state.services.keys.now();
  ctx.set('cache-control', 'no-store');
  ctx.body = bodyOf(family, {
    key: found,
    models: fromFile?.models ?? stored?.models ?? ['*'],
    expiresAt: stored?.expires_at ? new Date(stored.expires_at).toISOString() : null,
    figures: await tenantFigures(state, found, now),
  });
}

export function registerTenantRoutes(router: GatewayRouter): void {
  router.get('/v1/me', async (ctx) => {
    const family = familyOf(ctx);
    const format = formatNamed(formatNames[family]);
    if (!format) throw new Error(`format ${formatNames[family]} is not served`);
    try {
      await me(ctx, format, family);
    } catch (e) {
      // No format claims /v1/me by its path: the error takes the shape of the credential's family.
      const err = toGatewayError(e);
      if (err.kind === 'internal') ctx.state.services.log.error({ err: e }, 'the tenant view failed');
      const enc = format.encodeError(err);
      ctx.status = enc.status;
      ctx.body = enc.body;
      if (enc.headers) ctx.set(enc.headers);
    }
  });
}
