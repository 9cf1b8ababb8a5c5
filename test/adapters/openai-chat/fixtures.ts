// Golden fixtures of the openai-chat format (test/fixtures/openai-chat/<case>.*) and the framing
// polygate's SSE writer uses, so stream tests compare the exact bytes a client receives.
import { fixtureFiles } from '../../helpers/fixture-files.ts';

const files = fixtureFiles('openai-chat');
export const fixtureJson = files.json;
export const fixtureText = files.text;

/** One upstream SSE event per line: each line is the `data:` payload. */
export const fixtureChunks = (name: string): Array<{ data: string }> =>
  fixtureText(name)
    .split('\n')
    .filter((l) => l !== '')
    .map((data) => ({ data }));

export { sseText, warnings } from '../../helpers/fixture-files.ts';
