// Byte-identity of the Gemini client codec across refactors (issue #28, session 12): 1,500 random
// GenerateContentRequests (either field spelling, unknown keys, every part kind, wrong types, missing
// and doubled fields, generationConfig, thinkingConfig, schemas, tools) and 400 random ChatResults,
// each decoded / encoded, its JSON text (or error kind, param and message) digested. The digests in
// gemini-codec-golden.json were written by the code before the session-12 rewrite of the field
// reads; any change in a result, a key order, an error's param or message fails here with the case.
// The cases: golden-cases.ts (its own seeded PRNG).
// GOLDEN_WRITE=1 writes the digests again (only for an intended change in the output).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { geminiClientCodec } from '../../../adapters/gemini/index.ts';
import type { InboundContext } from '../../../adapters/shared/chat-adapter.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';
import { bad, chance, pickOf, request, result, rng } from './golden-cases.ts';

const goldenFile = new URL('./gemini-codec-golden.json', import.meta.url);

function outcome(fn: () => unknown): string {
  try {
    return `ok ${JSON.stringify(fn())}`;
  } catch (e) {
    if (e instanceof GatewayError) return `error ${e.kind} ${String(e.param)} ${e.message}`;
    return `throw ${e instanceof Error ? e.constructor.name : typeof e}`;
  }
}

const digest = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

function cases(): Array<{ input: unknown; out: string }> {
  const out: Array<{ input: unknown; out: string }> = [];
  const r = rng(28_12);
  for (let i = 0; i < 1500; i++) {
    const body = request(r, chance(r, 0.5));
    const ctx: InboundContext = {
      headers: {},
      params: { model: bad(r, 0.03) ? '' : pickOf(r, ['gemini-x', 'models/gemini-x']) },
      query: {},
      streamByRoute: chance(r, 0.3) ? true : undefined,
    };
    out.push({
      input: body,
      out: outcome(() => [geminiClientCodec.peekRequest(body, ctx), geminiClientCodec.decodeRequest(body, ctx)]),
    });
  }
  for (let i = 0; i < 400; i++) {
    const { res, req } = result(r);
    out.push({ input: res, out: outcome(() => geminiClientCodec.encodeResult(res, req)) });
  }
  return out;
}

t.test('the Gemini client codec answers every golden case as before, byte for byte', async (t) => {
  const all = cases();
  const digests = all.map((c) => digest(c.out));
  if (process.env.GOLDEN_WRITE === '1') writeFileSync(goldenFile, `${JSON.stringify(digests, null, 0)}\n`);
  const golden = JSON.parse(readFileSync(goldenFile, 'utf8')) as string[];
  t.equal(golden.length, all.length, 'as many cases as the golden set');
  const answers = all.filter((c) => c.out.startsWith('ok ')).length;
  t.ok(answers > 600 && all.length - answers > 600, `the cases include answers (${answers}) and 400s`);
  const wrong = digests.flatMap((d, i) => (d === golden[i] ? [] : [i]));
  for (const i of wrong.slice(0, 3)) t.fail(`case ${i} differs`, { input: all[i].input, out: all[i].out });
  t.equal(wrong.length, 0, 'no case differs');
});
