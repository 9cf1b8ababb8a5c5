// The usage_records table as older polygates created it, for the tests that open such a file and
// check the columns added since are there and its rows still read.

/** The columns before hosted-tool searches were counted (#27) and before the request log (#25). */
export const usageRecordsColumnsBeforeSearches = `
  ts INTEGER NOT NULL, day TEXT NOT NULL, request_id TEXT NOT NULL, key TEXT NOT NULL, workspace TEXT NOT NULL,
  family TEXT NOT NULL, model TEXT NOT NULL, provider TEXT NOT NULL, upstream_model TEXT NOT NULL,
  format_in TEXT NOT NULL, format_out TEXT NOT NULL, mode TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, characters INTEGER NOT NULL,
  audio_ms INTEGER NOT NULL, tasks INTEGER NOT NULL, cost_nano INTEGER NOT NULL, priced INTEGER NOT NULL,
  outcome TEXT NOT NULL, status INTEGER NOT NULL, usage_source TEXT NOT NULL DEFAULT 'reported'`;

/** The searches' columns (#27), which the request log's first version (#25) already had. */
export const usageRecordsSearchColumns =
  'web_search_requests INTEGER NOT NULL DEFAULT 0, web_fetch_requests INTEGER NOT NULL DEFAULT 0';
