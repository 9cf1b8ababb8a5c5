// Which requests ask a model for work, the one rule the key's budget (src/services/access/budgets.ts)
// and its rpm and concurrency limits (src/services/access/key-limits.ts) both apply.
import type Koa from 'koa';

/**
 * Every POST but the task queries (POST /tune/fetch) and token counting in each format that has it
 * (Messages count_tokens, Responses input_tokens, Gemini countTokens): reads
 * (GET /v1/responses/{id}, GET /tune/fetch/{id}) cost nothing and stay open to a key over its
 * budget or limits, so polling a task never eats either.
 */
export const asksForWork = (ctx: Koa.Context): boolean =>
  ctx.method === 'POST' && ctx.path !== '/tune/fetch' && !countsTokens(ctx.path);

const countsTokens = (path: string): boolean =>
  path.endsWith('/count_tokens') || path.endsWith('/input_tokens') || path.endsWith(':countTokens');
