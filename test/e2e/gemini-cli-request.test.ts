// A Gemini CLI 0.61 turn replayed through a running polygate with the official @google/genai SDK,
// in the shape the CLI sends it: streamGenerateContent with a long systemInstruction, a session
// context turn, a dozen function declarations in `parametersJsonSchema` (with `$schema` and
// `additionalProperties`), `thinkingConfig: {thinkingLevel, includeThoughts}`, sampling knobs, and
// fields polygate does not know (sent through the SDK's extraBody, as a newer CLI would). Then the
// next turn with the model's function call and the function response. No target may answer 400;
// translated ones name what they dropped in x-polygate-warnings.
import t from 'tap';
import {
  GoogleGenAI,
  ThinkingLevel,
  type Content,
  type FunctionDeclaration,
  type GenerateContentResponse,
} from '@google/genai';
import { gatewayWithEmulators } from '../helpers/gateway-with-upstreams.ts';
import { TEST_KEY } from '../helpers/start-gateway.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

import type { Json } from '../helpers/json.ts';

const { gw, up } = await gatewayWithEmulators(t, {
  upstreams: { anth: 'anthropic', chat: 'chat' },
  models: modelRoutes({
    'cli-anthropic': 'anth/claude-upstream-1',
    'cli-chat': 'chat/gpt-upstream-1',
  }),
});
const { anth, chat } = up;

/** Captures the response headers the SDK does not expose on a stream. */
const seenHeaders: Headers[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  seenHeaders.push(res.headers);
  return res;
};
const ai = new GoogleGenAI({
  apiKey: TEST_KEY,
  apiVersion: 'v1beta',
  httpOptions: {
    baseUrl: gw.url,
    fetch: recordingFetch,
    // Fields newer than polygate, as a newer CLI would send them.
    extraBody: {
      futureField: { on: true },
      generationConfig: { thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true, futureThinkingKnob: 1 } },
    },
  },
});

const jsonSchema = (properties: Json, required: string[]): Json => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const declarations: FunctionDeclaration[] = [
  {
    name: 'list_directory',
    description: 'Lists the names of files and subdirectories directly within a specified directory path.',
    parametersJsonSchema: jsonSchema(
      { dir_path: { type: 'string' }, ignore: { type: 'array', items: { type: 'string' } } },
      ['dir_path'],
    ),
  },
  {
    name: 'read_file',
    description: 'Reads and returns the content of a specified file.',
    parametersJsonSchema: jsonSchema(
      { file_path: { type: 'string' }, offset: { type: 'number' }, limit: { type: 'number' } },
      ['file_path'],
    ),
  },
  {
    name: 'search_file_content',
    description: 'Searches for a regular expression pattern within files.',
    parametersJsonSchema: jsonSchema(
      { pattern: { type: 'string' }, dir_path: { type: 'string' }, include: { type: 'string' } },
      ['pattern'],
    ),
  },
  {
    name: 'glob',
    description: 'Finds files matching specific glob patterns.',
    parametersJsonSchema: jsonSchema(
      { pattern: { type: 'string' }, dir_path: { type: 'string' }, case_sensitive: { type: 'boolean' } },
      ['pattern'],
    ),
  },
  {
    name: 'replace',
    description: 'Replaces text within a file.',
    parametersJsonSchema: jsonSchema(
      {
        file_path: { type: 'string' },
        old_string: { type: 'string' },
        new_string: { type: 'string' },
        expected_replacements: { type: 'number', minimum: 1 },
      },
      ['file_path', 'old_string', 'new_string'],
    ),
  },
  {
    name: 'write_file',
    description: 'Writes content to a specified file.',
    parametersJsonSchema: jsonSchema({ file_path: { type: 'string' }, content: { type: 'string' } }, [
      'file_path',
      'content',
    ]),
  },
  {
    name: 'web_fetch',
    description: 'Processes content from URL(s) embedded in a prompt.',
    parametersJsonSchema: jsonSchema({ prompt: { type: 'string' } }, ['prompt']),
  },
  {
    name: 'run_shell_command',
    description: 'Executes a given shell command as `bash -c <command>`.',
    parametersJsonSchema: jsonSchema(
      { command: { type: 'string' }, description: { type: 'string' }, dir_path: { type: 'string' } },
      ['command'],
    ),
  },
  {
    name: 'save_memory',
    description: 'Saves a specific piece of information to long-term memory.',
    parametersJsonSchema: jsonSchema({ fact: { type: 'string' } }, ['fact']),
  },
  {
    name: 'google_web_search',
    description: 'Performs a web search using Google Search (via the Gemini API).',
    parametersJsonSchema: jsonSchema({ query: { type: 'string' } }, ['query']),
  },
  {
    name: 'write_todos',
    description: 'Lists out the subtasks that are required to complete a given user request.',
    parametersJsonSchema: jsonSchema(
      {
        todos: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              description: { type: 'string' },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed', 'cancelled'] },
            },
            required: ['description', 'status'],
            additionalProperties: false,
          },
        },
      },
      ['todos'],
    ),
  },
];
const systemInstruction =
  'You are an interactive CLI agent specializing in software engineering tasks. Your primary goal is to help users safely and efficiently.';
const firstTurn: Content[] = [
  {
    role: 'user',
    parts: [
      {
        text: "This is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Monday, November 23, 2026.\nMy operating system is: linux\nI'm currently working in the directory: /work/project",
      },
    ],
  },
  { role: 'model', parts: [{ text: 'Got it. Thanks for the context!' }] },
  { role: 'user', parts: [{ text: 'list the files in docs' }] },
];
const config = {
  systemInstruction,
  tools: [{ functionDeclarations: declarations }],
  temperature: 1,
  topP: 0.95,
  topK: 64,
  thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.HIGH },
};

async function stream(
  model: string,
  contents: Content[],
): Promise<{ chunks: GenerateContentResponse[]; warnings: string }> {
  seenHeaders.length = 0;
  const chunks: GenerateContentResponse[] = [];
  for await (const c of await ai.models.generateContentStream({ model, contents, config })) chunks.push(c);
  return { chunks, warnings: seenHeaders[0]?.get('x-polygate-warnings') ?? '' };
}
const partsOf = (chunks: GenerateContentResponse[]): Json[] =>
  chunks.flatMap((c) => (c.candidates?.[0]?.content?.parts ?? []) as Json[]);
const textOf = (chunks: GenerateContentResponse[]): string =>
  partsOf(chunks)
    .filter((p) => !p.thought && typeof p.text === 'string')
    .map((p) => p.text)
    .join('');

t.test('echo: the CLI turn answers', async (t) => {
  const { chunks } = await stream('echo', firstTurn);
  t.match(textOf(chunks), /list the files in docs/);
  t.equal(chunks[chunks.length - 1]?.candidates?.[0]?.finishReason, 'STOP');
});

for (const [name, model, emu] of [
  ['anthropic upstream', 'cli-anthropic', anth],
  ['openai chat upstream', 'cli-chat', chat],
] as const) {
  t.test(`${name}, translated: no 400, unknown fields named, the function call round trip works`, async (t) => {
    emu.reset();
    emu.script(
      { kind: 'tool', name: 'list_directory', args: '{"dir_path":"docs"}' },
      { kind: 'text', text: 'docs holds configuration.md.' },
    );
    const one = await stream(model, firstTurn);
    const call = partsOf(one.chunks).find((p) => p.functionCall)?.functionCall;
    t.match(call, { name: 'list_directory', args: { dir_path: 'docs' } });
    t.match(one.warnings, /futureField/, 'an unknown top-level field named');
    t.match(
      one.warnings,
      /generationConfig\.thinkingConfig\.futureThinkingKnob/,
      'an unknown thinkingConfig field named',
    );
    const sent = emu.requests[emu.requests.length - 1]?.body as Json;
    t.equal(JSON.stringify(sent.tools).match(/"name":/g)?.length, declarations.length, 'every declaration offered');

    const two = await stream(model, [
      ...firstTurn,
      { role: 'model', parts: [{ functionCall: call }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: call?.id,
              name: 'list_directory',
              response: { output: 'configuration.md\nresilience.md' },
            },
          },
        ],
      },
    ]);
    t.match(textOf(two.chunks), /configuration\.md/);
    t.match(
      JSON.stringify(emu.requests[emu.requests.length - 1]?.body),
      /resilience\.md/,
      'the function response reached the upstream',
    );
  });
}
