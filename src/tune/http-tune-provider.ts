import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import {
  decodeSubmitData,
  decodeUpstreamEnvelope,
  decodeUpstreamTasks,
  encodeFetch,
  encodeLyricsSubmit,
  encodeMusicSubmit,
} from '../../adapters/tune/index.ts';
import type { UpstreamHttpRequest } from '../../adapters/shared/chat-adapter.ts';
import type { ProviderConfig } from '../config/gateway-config.ts';
import { GatewayError } from '../ir/gateway-error.ts';
import type { TaskSubmission, UpstreamTaskView } from '../ir/music-task.ts';
import { upstreamDuration } from '../metrics/registry.ts';
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
    this.#headers = { ...(cfg.headers ?? {}), authorization: `Bearer ${cfg.api_key ?? ''}`, 'content-type': 'application/json', accept: 'application/json' };
    this.#dispatcher = dispatcher;
  }

  async submit(submission: TaskSubmission, upstreamModel: string): Promise<string> {
    const req = submission.kind === 'music' ? encodeMusicSubmit(submission, upstreamModel) : encodeLyricsSubmit(submission);
    return decodeSubmitData(await this.#call(req), this.name);
  }

  async fetch(upstreamIds: string[]): Promise<UpstreamTaskView[]> {
    if (upstreamIds.length === 0) return [];
    return decodeUpstreamTasks(await this.#call(encodeFetch(upstreamIds)));
  }

  async #call(req: UpstreamHttpRequest): Promise<unknown> {
    const started = performance.now();
    let outcome = 'error';
    try {
      const res = await request(`${this.#base}${req.path}`, {
        method: 'POST',
        headers: { ...this.#headers, ...req.headers },
        body: JSON.stringify(req.body),
        dispatcher: this.#dispatcher,
        headersTimeout: callTimeoutMs,
        bodyTimeout: callTimeoutMs,
      });
      const text = await res.body.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new GatewayError('upstream', `provider '${this.name}' answered HTTP ${res.statusCode} with a body that is not JSON`);
      }
      const data = decodeUpstreamEnvelope(res.statusCode, body, this.name);
      outcome = 'ok';
      return data;
    } catch (e) {
      if (e instanceof GatewayError) {
        outcome = `http_${e.status}`;
        throw e;
      }
      if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError) {
        outcome = 'timeout';
        throw new GatewayError('timeout', `provider '${this.name}' did not answer within ${callTimeoutMs / 1000} s`);
      }
      throw new GatewayError('upstream', `provider '${this.name}' is unreachable: ${(e as Error).message}`);
    } finally {
      upstreamDuration.observe({ provider: this.name, upstream_format: 'tune', outcome }, (performance.now() - started) / 1000);
    }
  }
}
