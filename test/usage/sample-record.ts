// One usage record as the gateway writes it (a Messages request translated to an OpenAI Chat upstream),
// for the tests and benchmarks of the ledger and its stores; each names only the fields it is about.
// And the ids a ledger database holds (`idsIn`).
import { DatabaseSync } from 'node:sqlite';
import { dayOf, type UsageRecord } from '../../src/services/usage/usage-record.ts';

export function sampleRecord(i: number, over: Partial<UsageRecord> = {}): UsageRecord {
  const ts = over.ts ?? Date.now();
  return {
    ts,
    day: dayOf(ts),
    request_id: `req-${i}`,
    key: 'k',
    workspace: 'default',
    family: 'messages',
    model: 'sonnet',
    provider: 'openai',
    upstream_model: 'gpt-4.1',
    format_in: 'anthropic-messages',
    format_out: 'openai-chat',
    mode: 'translate',
    input_tokens: 10,
    output_tokens: 20,
    reasoning_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    usage_source: 'reported',
    characters: 0,
    audio_seconds: 0,
    tasks: 0,
    web_search_requests: 0,
    web_fetch_requests: 0,
    cost_nano: 330,
    priced: true,
    outcome: 'ok',
    status: 200,
    ...over,
  };
}

/** The request ids in the database, in order, read on a connection of its own. */
export function idsIn(path: string): string[] {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare('SELECT request_id FROM usage_records ORDER BY rowid').all() as { request_id: string }[]).map(
      (r) => r.request_id,
    );
  } finally {
    db.close();
  }
}
