// Pieces of the usage tests: a gateway config with prices for every family, admin API calls.
import type { RunningGateway } from '../helpers/start-gateway.ts';
import { testConfig } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { fastTune } from '../tune/tune-helpers.ts';

export const ADMIN_TOKEN = 'admin-token-for-tests-0001';

/** USD prices the tests compute expected costs from (per million tokens, per character, second, task). */
export const prices = {
  chat: { input: 3, output: 15 },
  anthropicRoute: { input: 2, output: 10 },
  tts: { per_character: 0.000015, per_second: 0.002 },
  whisper: { per_second: 0.0001 },
  music: { per_task: 0.05 },
};

export type Upstreams = { chatUrl: string; anthropicUrl: string; audioUrl: string; audioKey: string };

export function pricedConfig(up: Upstreams, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return testConfig({
    providers: {
      oa: { type: 'openai', base_url: up.chatUrl, api_key: 'sk-up-chat', api: 'chat_completions' },
      anth: { type: 'anthropic', base_url: up.anthropicUrl, api_key: 'sk-up-anth' },
      audio: { type: 'openai', base_url: up.audioUrl, api_key: up.audioKey },
      sandbox: { type: 'sandbox-tune' },
    },
    models: modelRoutes({
      // Priced by its client-facing name.
      'chat-a': 'oa/gpt-up',
      // Priced by the provider's upstream model.
      'claude-b': 'anth/claude-up',
      'tts-1': 'audio/tts-up',
      'whisper-1': 'audio/whisper-up',
      'tune-v3-0': 'sandbox/tune-v3-0',
      'tune-v3-5': 'sandbox/tune-v3-5',
    }),
    tune: fastTune,
    admin: { token: ADMIN_TOKEN },
    usage: {
      flush_interval_ms: 50,
      prices: {
        models: { 'chat-a': prices.chat, 'tts-1': prices.tts, 'whisper-1': prices.whisper, 'tune-v3-0': prices.music },
        providers: { anth: { 'claude-up': prices.anthropicRoute } },
      },
    },
    ...extra,
  });
}

export type Row = Record<string, number | string> & {
  cost_nano: number;
  cost_usd: number;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Requests whose tokens polygate estimated whole, or in part (src/services/usage/usage-meter.ts). */
  estimated: number;
  partial: number;
};
export type Report = { since: string; until: string; group_by: string[]; rows: Row[]; totals: Row };

export async function usage(gw: RunningGateway, query: string, token = ADMIN_TOKEN): Promise<Report> {
  const res = await fetch(`${gw.url}/admin/usage?${query}`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`admin usage: ${res.status} ${await res.text()}`);
  return (await res.json()) as Report;
}

/** USD per million tokens → nano-dollars for `tokens` (the ledger's unit: 1e-9 USD). */
export const tokenNano = (tokens: number, usdPerMillion: number): number => tokens * usdPerMillion * 1000;
