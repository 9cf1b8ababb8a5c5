// What every cloud upstream (Azure OpenAI, Vertex, Bedrock: issue #26) must do for every client
// family, through its official SDK: answer text, stream, and a tool round trip, each request
// arriving in the cloud's own form; and refuse a wrong credential with a 502 naming the provider.
// The cloud's test says only how a request must arrive (`arrived`) and what must not leak.
import type { Test } from 'tap';
import type { Emulator, RecordedRequest } from '../emulators/emulator-types.ts';
import { lastRequest } from './cloud-gateway.ts';
import type { Driver } from './matrix/drivers/driver.ts';
import { toolArgPieces, toolArgs, weatherTool } from './matrix/fixtures.ts';

export type CloudReach = {
  emu: Emulator;
  drivers: readonly Driver[];
  /** The cloud as the assertions name it ('Azure'); it answers `hello from azure`. */
  cloud: string;
  models: readonly string[];
  /** The models a tool round trip also runs on (every one of `models` when left out). */
  toolModels?: readonly string[];
  /** How a request for `model` must arrive on the cloud (path, credentials, envelope). */
  arrived(t: Test, got: RecordedRequest, model: string, stream: boolean): void;
};

/** Per client family and model: text, stream and (on `toolModels`) a tool round trip. */
export function everyFamilyReaches(t: Test, c: CloudReach): void {
  const greeting = `hello from ${c.cloud.toLowerCase()}`;
  for (const d of c.drivers)
    t.test(`client ${d.family}`, async (t) => {
      for (const model of c.models)
        t.test(model, async (t) => {
          t.beforeEach(() => c.emu.reset());
          t.test('text', async (t) => {
            c.emu.script({ kind: 'text', text: greeting });
            const out = await d.text(model, 'terse', 'hi');
            t.equal(out.text, greeting);
            t.equal(out.finish, d.stopWords.stop);
            t.ok(out.usage.input > 0 && out.usage.output > 0, 'usage reached the client');
            c.arrived(t, lastRequest(c.emu), model, false);
          });
          t.test('stream', async (t) => {
            c.emu.script({ kind: 'text', text: 'one two three', chunks: ['one ', 'two ', 'three'] });
            const out = await d.stream(model, 'count');
            t.equal(out.text, 'one two three');
            t.ok(out.deltas.length > 1, 'arrived in pieces');
            c.arrived(t, lastRequest(c.emu), model, true);
          });
          if (c.toolModels?.includes(model) ?? true)
            t.test('tool round trip', async (t) => {
              c.emu.script({ kind: 'tool', name: weatherTool.name, args: toolArgs, argChunks: toolArgPieces });
              const call = await d.toolCall(model, 'weather in Paris?', weatherTool);
              t.equal(call.finish, d.stopWords.tool);
              t.same(call.call.args, JSON.parse(toolArgs));
              c.emu.script({ kind: 'text', text: 'Sunny.' });
              const next = await d.toolResultTurn(model, call, weatherTool, 'sunny, 21C');
              t.equal(next.text, 'Sunny.');
              t.match(lastRequest(c.emu).raw, 'sunny, 21C', `the tool result reached ${c.cloud}`);
            });
        });
    });
}

/**
 * A wrong credential: every family gets a 502 (Gemini's own shape reads it as UNAVAILABLE, gRPC's
 * HTTP mapping) that `says` what failed, and none of `absent` (what each is, by its value) in the body.
 */
export async function refusedInEveryFamily(
  t: Test,
  drivers: readonly Driver[],
  model: string,
  says: RegExp,
  absent: Record<string, string | RegExp>,
): Promise<void> {
  for (const d of drivers) {
    const out = await d.error(model);
    t.equal(out.status, 502, d.family);
    if (d.family === 'gemini') t.match(out.body, { error: { code: 502, status: 'UNAVAILABLE' } });
    const text = JSON.stringify(out.body);
    t.match(text, says, d.family);
    for (const [what, value] of Object.entries(absent)) t.notMatch(text, value, what);
  }
}
