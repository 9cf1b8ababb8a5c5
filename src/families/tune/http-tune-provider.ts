import type { Dispatcher } from 'undici';
import {
  decodeSubmitData,
  decodeUpstreamEnvelope,
  decodeUpstreamTasks,
  encodeFetch,
  encodeLyricsSubmit,
  encodeMusicSubmit,
} from '../../../adapters/tune/index.ts';
import type { UpstreamHttpRequest, WireHeaders } from '../../../adapters/shared/chat-adapter.ts';
// The common HTTP Retry-After rule (seconds or a date; retry-after-ms first).
import { retryAfterOf } from '../../../adapters/shared/retry-after.ts';
import type { ProviderConfig } from '../../infra/config/gateway-config.ts';
import { GatewayError } from '../../ir/gateway-error.ts';
import type { TaskSubmission, UpstreamTaskView } from '../../ir/music-task.ts';
import { errorBodyOf, upstreamRequest } from '../../infra/upstream/upstream-request.ts';
import type { TuneProvider } from './tune-provider.ts';

/** Submissions and fetches are small JSON exchanges; a music service that stalls this long is down. */
const callTimeoutMs = 30_000;

/** Upstream type `tune`: a service speaking the `tune` format under `base_url`, with `Authorization: Bearer api_key`. */
export class HttpTuneProvider implements TuneProvider {
  readonly name: string;
  readonly type = 'tune';
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #dispatcher: Dispatcher;

  constructor(name: string, cfg: ProviderConfig, dispatcher: Dispatcher) {
    this.name = name;
    this.#base = (cfg.base_url ?? '').replace(/\/+$/, '');
    this.#headers = {
      ...(cfg.headers ?? {}),
      authorization: `Bearer ${cfg.api_key ?? ''}`,
      'content-type': 'application/json',
      accept: 'application/json',
    };
    this.#dispatcher = dispatcher;
  }

  async submit(submission: TaskSubmission, upstreamModel: string): Promise<string> {
    const req =
      submission.kind === 'music' ? encodeMusicSubmit(submission, upstreamModel) : encodeLyricsSubmit(submission);
    return decodeSubmitData(await this.#call(req), this.name);
  }

  async fetch(upstreamIds: string[]): Promise<UpstreamTaskView[]> {
    if (upstreamIds.length === 0) return [];
    return decodeUpstreamTasks(await this.#call(encodeFetch(upstreamIds)));
  }

  async #call(req: UpstreamHttpRequest): Promise<unknown> {
    const res = await upstreamRequest({
      provider: this.name,
      upstreamFormat: 'tune',
      url: `${this.#base}${req.path}`,
      dispatcher: this.#dispatcher,
      timeouts: { firstByteMs: callTimeoutMs, idleMs: callTimeoutMs },
      headers: { ...this.#headers, ...req.headers },
      body: JSON.stringify(req.body),
    });
    const body = await errorBodyOf(res);
    if (typeof body === 'string' && res.statusCode < 400) {
      throw new GatewayError(
        'upstream',
        `provider '${this.name}' answered HTTP ${res.statusCode} with a body that is not JSON`,
      );
    }
    try {
      return decodeUpstreamEnvelope(res.statusCode, body, this.name);
    } catch (e) {
      // The upstream's Retry-After, for the route loop and the poller (src/services/resilience/backoff.ts).
      const retryAfter = retryAfterOf(res.headers as WireHeaders);
      if (!(e instanceof GatewayError) || retryAfter === undefined) throw e;
      throw new GatewayError(e.kind, e.message, { status: e.status, param: e.param, retryAfter });
    }
  }
}
