// The request context every polygate handler sees: Koa's, typed once with polygate's request state
// (src/services/runtime/request-state.ts), which the app's request scope (src/app/app.ts) fills
// before any route runs. Handlers take a GatewayContext, so the compiler says what they may read
// from `ctx.state` instead of each casting it.
import type Router from '@koa/router';
import type Koa from 'koa';
import type { ChatState } from './request-state.ts';

/** What a request carries through the layers: the runtime, the services, its key once admitted… */
export type GatewayState = ChatState;

export type GatewayContext = Koa.ParameterizedContext<GatewayState>;

export type GatewayMiddleware = Koa.Middleware<GatewayState>;

/** The router every client and operator route is registered on (src/app/). */
export type GatewayRouter = Router<GatewayState>;

const noQuery: GatewayContext['query'] = Object.freeze({});

/**
 * `ctx.query` for code that only reads it: a path without a query string gets one shared empty
 * object instead of Koa's parse (a URLSearchParams, an object and a cache object per request,
 * ~0.5 % of a translated request's CPU; bench/RESULTS.md, "Session 10").
 */
export const queryOf = (ctx: Koa.Context): GatewayContext['query'] => (ctx.querystring === '' ? noQuery : ctx.query);
