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
