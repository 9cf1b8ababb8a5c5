// Per-key limits (keys[].limits: rpm, tpm, concurrency; 0 = unlimited). Requests that ask a model
// for work count: every POST but the task queries (POST /tune/fetch) and token counting. Reads
// (GET /v1/responses/{id}, GET /tune/fetch/{id}) are free, so polling a task never eats the budget.
import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { ApiKey } from '../auth/key-ring.ts';
import type { ChatRequest } from '../../ir/chat-request.ts';
import type { Usage } from '../../ir/chat-result.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import { limitKinds, rateLimitedTotal } from '../../infra/metrics/registry.ts';
import { afterUpstream, type RequestState } from '../runtime/request-state.ts';
import { estimateTokens } from '../tokens/estimate-tokens.ts';
import type { RateCounter, Slot, TakeResult } from '../limits/rate-counter.ts';
import { asksForWork } from './asks-for-work.ts';
import type { GatewayContext } from '../runtime/gateway-context.ts';

type LimitKind = (typeof limitKinds)[number];
const minute = 60_000;

/** A request's token reservation, corrected once the upstream reports its usage. */
type Reservation = { counter: RateCounter; keyId: string; estimate: number; window: number; settled: boolean };
/**
 * On the request's state under a symbol: a WeakMap entry per request cost more (its ephemeron is
 * collected apart from the state, src/app/request-log-entry.ts says the same).
 */
const reservationKey = Symbol('polygate.tpmReservation');
type Reserving = RequestState & { [reservationKey]?: Reservation };

let warnedAt = 0;

function refuse(key: ApiKey, kind: LimitKind, limit: number, retryAfterMs: number, detail = ''): GatewayError {
  rateLimitedTotal.inc({ key: key.id, limit: kind });
  const unit = kind === 'rpm' ? 'requests per minute' : kind === 'tpm' ? 'tokens per minute' : 'concurrent requests';
  return new GatewayError(
    'rate-limit',
    `Rate limit reached for API key '${key.id}': ${limit} ${unit} (${kind})${detail}. Try again in ${Math.ceil(retryAfterMs / 1000)} s.`,
    {
      retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)),
    },
  );
}

/** What `failOpen` gives for a store that could not answer (a slot's `undefined` is an answer: refused). */
const unanswered: unique symbol = Symbol('unanswered');

/**
 * A limit store that cannot answer (Redis down) lets requests through: limits protect budgets,
 * and refusing all traffic would turn a store outage into a gateway outage. Said in the log.
 * Takes the store's pending answer (RateCounter's methods are async: they reject, never throw),
 * so a request pays for no closure and no wrapper object per limit.
 */
function failOpen<T>(log: Logger, what: string, pending: Promise<T>): Promise<T | typeof unanswered> {
  return pending.then(undefined, (err: unknown) => {
    if (Date.now() - warnedAt > 10_000) {
      warnedAt = Date.now();
      log.warn({ err }, `rate limits not enforced: ${what} failed`);
    }
    return unanswered;
  });
}

const heldKey = Symbol('polygate.concurrencySlot');
type Holding = ServerResponse & { [heldKey]?: { state: RequestState; slot: Slot } };

/**
 * Releases `slot` once `res` has closed and the request's upstream call has ended, through one
 * 'close' listener shared by every response (`once` and two closures per request before).
 */
function releaseOnClose(res: ServerResponse, state: RequestState, slot: Slot): void {
  const r = res as Holding;
  // A second admission of the same response (not done today) keeps its own listener.
  if (r[heldKey] !== undefined) {
    res.once('close', () => afterUpstream(state, () => slot.release()));
    return;
  }
  r[heldKey] = { state, slot };
  res.on('close', slotClosed);
}

function slotClosed(this: Holding): void {
  const held = this[heldKey];
  if (held !== undefined) afterUpstream(held.state, () => held.slot.release());
}

/**
 * Runs after authentication (src/services/access/admit-request.ts): rpm and concurrency, for every
 * family. A counter in this process (`sync`) answers at once; one across the network is awaited.
 */
export function enforceKeyLimits(ctx: GatewayContext, next: Koa.Next): Promise<void> {
  const state = ctx.state;
  const key = state.key;
  const l = key.limits;
  if ((l.rpm === 0 && l.concurrency === 0) || !asksForWork(ctx)) return next();
  const sync = state.services.rateCounter.sync;
  if (sync === undefined) return enforceAwaited(ctx, next);
  let slot: Slot | undefined;
  if (l.concurrency > 0) {
    slot = sync.acquireSlotNow(key.id, l.concurrency);
    if (slot === undefined) return Promise.reject(refuse(key, 'concurrency', l.concurrency, 1000));
    // The client may have left while the budget's store was read (admit-request.ts): see below.
    if (ctx.res.closed) {
      slot.release();
      return Promise.reject(new GatewayError('internal', 'request aborted', { status: 499 }));
    }
    releaseOnClose(ctx.res, state, slot);
  }
  if (l.rpm > 0) {
    const r = sync.takeNow(counterKey(key.id, 'rpm'), 1, l.rpm, minute);
    if (!r.ok) {
      slot?.release();
      return Promise.reject(refuse(key, 'rpm', l.rpm, r.retryAfterMs));
    }
  }
  return next();
}

/** enforceKeyLimits over a store that answers later (Redis), failing open when it cannot. */
async function enforceAwaited(ctx: GatewayContext, next: Koa.Next): Promise<void> {
  const state = ctx.state;
  const key = state.key;
  const l = key.limits;
  const counter = state.services.rateCounter;
  let slot: Awaited<ReturnType<RateCounter['acquireSlot']>>;
  if (l.concurrency > 0) {
    const s = await failOpen(state.services.log, 'concurrency', counter.acquireSlot(key.id, l.concurrency));
    // No way to know when a slot frees up: a second is what clients are told to wait.
    if (s === undefined) throw refuse(key, 'concurrency', l.concurrency, 1000);
    slot = s === unanswered ? undefined : s;
    // Held to the response's last byte (streams included), or until the client leaves and the
    // upstream call it started has ended: a client that aborts at once cannot pile up upstream calls.
    if (slot) {
      // The client left while the slot was being taken (a Redis round trip, the budget's store read
      // before it): its 'close' has come and gone, so nothing would release the slot. Released now,
      // and the request ends as one whose client left before its upstream call (chat-handler.ts).
      if (ctx.res.closed) {
        slot.release();
        throw new GatewayError('internal', 'request aborted', { status: 499 });
      }
      releaseOnClose(ctx.res, state, slot);
    }
  }
  if (l.rpm > 0) {
    const r = await failOpen(state.services.log, 'rpm', counter.take(counterKey(key.id, 'rpm'), 1, l.rpm, minute));
    if (r !== unanswered && !r.ok) {
      slot?.release();
      throw refuse(key, 'rpm', l.rpm, r.retryAfterMs);
    }
  }
  await next();
}

/**
 * A key's counter names (`<key id>:rpm`, `<key id>:tpm`), built once per key rather than per
 * request (a concatenation, then flattened for the Map's hash). Bounded: runtime keys come and go.
 */
const counterKeys = new Map<string, { rpm: string; tpm: string }>();
function counterKey(keyId: string, kind: 'rpm' | 'tpm'): string {
  let k = counterKeys.get(keyId);
  if (k === undefined) {
    if (counterKeys.size >= 4096) counterKeys.clear();
    counterKeys.set(keyId, (k = { rpm: `${keyId}:rpm`, tpm: `${keyId}:tpm` }));
  }
  return k[kind];
}

/**
 * Chat requests: reserves the prompt's estimated tokens against the key's tpm, or answers 429.
 * `prompt` is the decoded request, or (for a relayed body, never decoded) the estimate itself.
 */
export function reserveTokens(state: RequestState, prompt: ChatRequest | (() => number)): Promise<void> | undefined {
  const key = state.key;
  const tpm = key.limits.tpm;
  if (tpm === 0) return;
  const counter = state.services.rateCounter;
  const estimate = typeof prompt === 'function' ? prompt() : estimateTokens(prompt);
  const name = counterKey(key.id, 'tpm');
  if (counter.sync !== undefined) return reserved(state, estimate, counter.sync.takeNow(name, estimate, tpm, minute));
  return failOpen(state.services.log, 'tpm', counter.take(name, estimate, tpm, minute)).then((r) =>
    reserved(state, estimate, r),
  );
}

/** reserveTokens' answer: the reservation noted on the request, or its 429 (thrown). */
function reserved(state: RequestState, estimate: number, r: TakeResult | typeof unanswered): undefined {
  if (r === unanswered) return;
  const key = state.key;
  const tpm = key.limits.tpm;
  if (!r.ok)
    throw refuse(
      key,
      'tpm',
      tpm,
      r.retryAfterMs,
      estimate > tpm ? `; this request alone is about ${estimate} tokens` : '',
    );
  const counter = state.services.rateCounter;
  (state as Reserving)[reservationKey] = { counter, keyId: key.id, estimate, window: r.window, settled: false };
}

/** Replaces the estimate by what the upstream reports it used (prompt and answer). */
export function settleTokens(state: RequestState, usage: Usage): void {
  const r = (state as Reserving)[reservationKey];
  if (!r || r.settled) return;
  r.settled = true;
  const delta = usage.inputTokens + usage.outputTokens - r.estimate;
  if (delta === 0) return;
  const name = counterKey(r.keyId, 'tpm');
  if (r.counter.sync !== undefined) r.counter.sync.addNow(name, delta, minute, r.window);
  else void failOpen(state.services.log, 'tpm correction', r.counter.add(name, delta, minute, r.window));
}
