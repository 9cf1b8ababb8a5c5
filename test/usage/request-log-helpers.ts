// Pieces of the request log tests (#25): a gateway with a relayed OpenAI Chat route, a relayed
// Anthropic route and a Messages → Chat translated one, content captured for workspace ws1 only;
// admin calls of GET /admin/requests.
import type { Emulator } from '../emulators/emulator-types.ts';
import type { RequestContent, RequestRow } from '../../src/services/usage/request-log.ts';
import { OTHER_KEY, TEST_KEY, testConfig } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';
import { ADMIN_TOKEN } from './usage-helpers.ts';

/** The rows the API answers (src/services/usage/request-log.ts), as the tests read them. */
export type Row = RequestRow;
export type Page = { data: Row[]; next_cursor: string | null };
export type Content = RequestContent;

export const CAPTURE_BYTES = 4096;

export function logConfig(
  chat: Emulator,
  anth: Emulator,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return testConfig({
    providers: {
      oa: { type: 'openai', base_url: chat.url, api_key: 'sk-up-chat-secret', api: 'chat_completions' },
      anth: { type: 'anthropic', base_url: anth.url, api_key: 'sk-up-anth-secret' },
    },
    models: modelRoutes({
      'chat-a': 'oa/gpt-up',
      'claude-b': 'anth/claude-up',
      // A Messages client on a Chat upstream: translated, with warnings for what Chat cannot take.
      'claude-on-chat': 'oa/gpt-up',
    }),
    // `other` (ws2) may use every model here: its workspace does not capture content.
    keys: [
      { id: 'test', secret: TEST_KEY, workspace: 'ws1', models: ['*'] },
      { id: 'other', secret: OTHER_KEY, workspace: 'ws2', models: ['*'] },
    ],
    admin: { token: ADMIN_TOKEN },
    usage: {
      flush_interval_ms: 50,
      prices: { models: { 'chat-a': { input: 3, output: 15 } } },
      capture_content: { ws1: { max_bytes: CAPTURE_BYTES } },
    },
    ...extra,
  });
}

export async function admin(
  url: string,
  path: string,
  init: { method?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? ADMIN_TOKEN}`;
  return fetch(`${url}${path}`, { method: init.method ?? 'GET', headers });
}

export async function page(url: string, query: string): Promise<Page> {
  const res = await admin(url, `/admin/requests?${query}`);
  if (res.status !== 200) throw new Error(`GET /admin/requests?${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Page;
}

/** Every row of a query, page by page (`limit` a page). */
export async function allPages(url: string, query: string, limit: number): Promise<{ rows: Row[]; pages: number }> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const p: Page = await page(url, `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    rows.push(...p.data);
    cursor = p.next_cursor;
    pages++;
    if (pages > 1000) throw new Error('pagination does not end');
  } while (cursor !== null);
  return { rows, pages };
}

export async function one(url: string, id: string): Promise<Row & { content: Content | null }> {
  const res = await admin(url, `/admin/requests/${encodeURIComponent(id)}`);
  if (res.status !== 200) throw new Error(`GET /admin/requests/${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Row & { content: Content | null };
}
