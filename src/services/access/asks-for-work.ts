// Which requests ask a model for work, the one rule the key's budget (src/services/access/budgets.ts)
// and its rpm and concurrency limits (src/services/access/key-limits.ts) both apply.
import type Koa from 'koa';

/**
 * Every POST but the task queries (POST /tune/fetch) and Anthropic's token counting: reads
 * (GET /v1/responses/{id}, GET /tune/fetch/{id}) cost nothing and stay open to a key over its
 * budget or limits, so polling a task never eats either.
 */
export const asksForWork = (ctx: Koa.Context): boolean =>
  ctx.method === 'POST' && ctx.path !== '/tune/fetch' && !ctx.path.endsWith('/count_tokens');
