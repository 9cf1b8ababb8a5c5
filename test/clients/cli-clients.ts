// How each real coding CLI is pointed at polygate, run non-interactively, and made to use one of
// its own tools (docs/clients.md says the same for operators). Versions are pinned: the ones the
// client suite (scripts/test-clients.ts) was verified with.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findTool, holdsToolResult, propertiesOf, type ToolPlan } from './tool-responder.ts';

export type CliName = 'claude-code' | 'codex' | 'gemini-cli';

export type CliRun = { args: string[]; env: Record<string, string>; cwd: string };

/** What the CLI is asked to do: use one of its own tools, or search the web (#27: polygate runs the search). */
export type Task = 'tool' | 'search';

export type Cli = {
  name: CliName;
  pkg: string;
  version: string;
  bin: string;
  /** Writes the CLI's configuration under `home`, the task's files under `work`; says how to run it. */
  prepare(o: {
    home: string;
    work: string;
    gateway: string;
    key: string;
    model: string;
    marker: string;
    task: Task;
  }): CliRun;
  plan(o: { work: string; marker: string }): ToolPlan;
  /** Speaks Responses over the WebSocket (GET /v1/responses): a run passes only if it never fell back to POST. */
  websocket?: boolean;
};

/** Never phone home: every CLI's own switches for telemetry, error reports and update checks. */
const quiet = { NO_UPDATE_NOTIFIER: '1', CI: '1', NO_COLOR: '1' };

const claudeCode: Cli = {
  name: 'claude-code',
  pkg: '@anthropic-ai/claude-code',
  version: '2.1.332',
  bin: 'claude',
  prepare: ({ home, work, gateway, key, model, marker, task }) => {
    if (task === 'tool') writeFileSync(join(work, 'marker.txt'), `${marker}\n`);
    return {
      cwd: work,
      args: [
        '-p',
        task === 'search'
          ? 'Search the web for polygate with your WebSearch tool and tell me what the first result says.'
          : 'Read the file marker.txt in the current folder with your Read tool and tell me what it says.',
        '--model',
        model,
        '--allowedTools',
        task === 'search' ? 'WebSearch' : 'Read',
      ],
      env: {
        ...quiet,
        HOME: home,
        ANTHROPIC_BASE_URL: gateway,
        ANTHROPIC_API_KEY: key,
        // Background (haiku-class) calls go to the same route, so they are captured too.
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        ANTHROPIC_SMALL_FAST_MODEL: model,
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    };
  },
  plan: ({ work, marker }) => ({
    marker,
    pick: (tools) => {
      const read = findTool(tools, ['Read']);
      return read && { name: read.name, args: { file_path: join(work, 'marker.txt') } };
    },
  }),
};

const codex: Cli = {
  name: 'codex',
  websocket: true,
  pkg: '@openai/codex',
  version: '0.171.0',
  bin: 'codex',
  prepare: ({ home, work, gateway, key, model, marker, task }) => {
    if (task === 'tool') writeFileSync(join(work, 'marker.txt'), `${marker}\n`);
    mkdirSync(join(home, '.codex'), { recursive: true });
    // Codex ignores OPENAI_BASE_URL: a provider table is the only way to name another endpoint.
    // supports_websockets = true: Codex opens the Responses WebSocket first (docs/responses-websocket.md);
    // the suite fails the run if it fell back to POST /v1/responses.
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      [
        `model_provider = "polygate"`,
        `model = "${model}"`,
        `check_for_update_on_startup = false`,
        ``,
        `[analytics]`,
        `enabled = false`,
        ``,
        `[model_providers.polygate]`,
        `name = "polygate"`,
        `base_url = "${gateway}/v1"`,
        `env_key = "POLYGATE_KEY"`,
        `wire_api = "responses"`,
        `supports_websockets = true`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        ``,
      ].join('\n'),
    );
    return {
      cwd: work,
      args: [
        'exec',
        '--skip-git-repo-check',
        '--ephemeral',
        '--color',
        'never',
        '--dangerously-bypass-approvals-and-sandbox',
        '-C',
        work,
        task === 'search'
          ? 'Search the web for polygate and tell me what the first result says.'
          : 'Run `cat marker.txt` in a shell and tell me what it printed.',
      ],
      env: { ...quiet, HOME: home, CODEX_HOME: join(home, '.codex'), POLYGATE_KEY: key },
    };
  },
  plan: ({ work, marker }) => ({
    marker,
    pick: (tools) => {
      const shell = findTool(tools, ['exec_command', 'shell_command', 'shell']);
      if (!shell) return undefined;
      const props = propertiesOf(shell);
      if ('cmd' in props) return { name: shell.name, args: { cmd: 'cat marker.txt', workdir: work } };
      const command = props.command as { type?: string } | undefined;
      return {
        name: shell.name,
        args: {
          command: command?.type === 'array' ? ['bash', '-lc', 'cat marker.txt'] : 'cat marker.txt',
          workdir: work,
        },
      };
    },
  }),
};

const geminiCli: Cli = {
  name: 'gemini-cli',
  pkg: '@google/gemini-cli',
  version: '0.61.0',
  bin: 'gemini',
  prepare: ({ home, work, gateway, key, model, marker, task }) => {
    // The marker is a file name in a folder the prompt names; a .geminiignore keeps that folder
    // out of the folder summary Gemini CLI puts in its first request, so only the tool shows it.
    mkdirSync(join(work, 'box'), { recursive: true });
    if (task === 'tool') writeFileSync(join(work, 'box', `${marker}.txt`), 'x\n');
    writeFileSync(join(work, '.geminiignore'), 'box/\n');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
    return {
      cwd: work,
      args: [
        '-p',
        task === 'search'
          ? 'Search the web for polygate with your google_web_search tool and tell me what the first result says.'
          : 'List the files in the folder named box with your list_directory tool and tell me their names.',
        '-m',
        model,
        '--approval-mode',
        'yolo',
        '-o',
        'text',
      ],
      env: {
        ...quiet,
        HOME: home,
        GEMINI_API_KEY: key,
        GOOGLE_GEMINI_BASE_URL: gateway,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        GEMINI_TELEMETRY_ENABLED: 'false',
      },
    };
  },
  plan: ({ work, marker }) => ({
    marker,
    pick: (tools) => {
      const ls = findTool(tools, ['list_directory']);
      if (!ls) return undefined;
      const key = 'dir_path' in propertiesOf(ls) ? 'dir_path' : 'path';
      return {
        name: ls.name,
        args: { [key]: join(work, 'box'), file_filtering_options: { respect_gemini_ignore: false } },
      };
    },
  }),
};

export const clis: Cli[] = [claudeCode, codex, geminiCli];

/**
 * Searching, for every CLI: the model calls the search tool it is offered, under whichever name
 * (polygate's `web_search` function on a hosted-tools route, Claude Code's WebSearch and Gemini
 * CLI's google_web_search client tools, which ask the model again with the provider's search tool);
 * the marker is in a search result only the search backend holds.
 */
export const searchPlan = (marker: string): ToolPlan => ({
  marker,
  prelude: deferredWebSearch(),
  pick: (tools) => {
    const search = findTool(tools, ['web_search', 'WebSearch']);
    return search && { name: search.name, args: { query: 'polygate' } };
  },
});

/**
 * Claude Code with tool search on (its default) lists WebSearch by name only: the model loads it
 * with ToolSearch (`select:WebSearch`), then calls it, once, as a real model would.
 */
function deferredWebSearch(): NonNullable<ToolPlan['prelude']> {
  let searched = false;
  return (tools, raw) => {
    // Done, or the WebSearch tool's own request (polygate offers its web_search there).
    if (searched || findTool(tools, ['web_search'])) return undefined;
    if (raw.includes('select:WebSearch')) {
      if (!holdsToolResult(raw)) return undefined;
      searched = true;
      return { name: 'WebSearch', args: { query: 'polygate' } };
    }
    const toolSearch = findTool(tools, ['ToolSearch']);
    if (!toolSearch || findTool(tools, ['WebSearch']) || !/\bWebSearch\b/.test(raw)) return undefined;
    return { name: toolSearch.name, args: { query: 'select:WebSearch' } };
  };
}
