// `BENCH_BEFORE=<older checkout> node bench/stream-differential.ts`: the translated stream path of
// this tree and of BENCH_BEFORE's, byte for byte (issue #28: a change that claims to keep the
// output must show it). Both trees' push reader (src/infra/upstream/read-sse.ts, fed Buffers read by
// read, a `setImmediate` apart, as the dispatch handler feeds it), upstream stream decoder,
// pipe-stream, client stream encoder and SSE writer, on DIFF_STREAMS seeded random upstream Chat
// streams (test/helpers/random-sse.ts: multi-byte text, reasoning, refusals, tool calls, usage,
// errors, broken JSON, every line end, a BOM, stray invalid bytes, random read cuts) into the
// Messages, Chat, Gemini and Responses encoders, and the mock's Chat, Messages and Gemini streams
// (bench/mock-bodies.ts) in 20 random read cuttings into every other format. Ids and timestamps
// made per run are masked. Prints the differences (0 is the claim) and the first two of them.
//
//   DIFF_STREAMS (1500)
import { randomReads, randomSseBytes, seeded } from '../test/helpers/random-sse.ts';
import { buildMockAnswers } from './mock-bodies.ts';
import { repoRoot } from './processes.ts';
import { clientRequest, type WireFormat } from './wire-requests.ts';
import { codecsOf, countingResponse, moduleOf } from './counting-response.ts';

type Run = (up: WireFormat, client: WireFormat, reads: Buffer[]) => Promise<string>;

const streams = Number(process.env.DIFF_STREAMS ?? 1500);
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

async function tree(dir: string): Promise<Run> {
  const { pipeStream, firstEvent } = await moduleOf(dir, 'src/families/chat/pipe-stream.ts');
  const { PushedSse } = await moduleOf(dir, 'src/infra/upstream/read-sse.ts');
  const formats = await codecsOf(dir);
  return async (up, client, reads) => {
    const request = formats[client].client.decodeRequest(JSON.parse(clientRequest[client]('bench', 'key', true).body), {
      headers: { 'anthropic-version': '2023-06-01' },
      params: { model: 'bench', action: 'streamGenerateContent' },
      query: { alt: 'sse' },
    });
    const control = { pause() {}, resume() {}, destroy() {} };
    const events = new PushedSse(control, formats[up].upstream.codec.createStreamDecoder(), (error: unknown) => ({
      type: 'error',
      error,
    }));
    const { res, text } = countingResponse(true);
    const feed = (async () => {
      for (const r of reads) {
        await turn();
        events.data(r);
      }
      await turn();
      events.end();
    })();
    let outcome: string;
    try {
      const { first, rest } = await firstEvent(events);
      const encoder = formats[client].client.createStreamEncoder(request);
      outcome = (
        await pipeStream(
          res,
          {},
          encoder,
          first,
          rest,
          () => {},
          async () => {},
        )
      ).outcome;
    } catch (e) {
      outcome = `threw ${(e as Error).message}`;
    }
    await feed;
    return `${text()}#${outcome}`
      .replace(/(msg|chatcmpl|resp|rs|fc|call|item)[_-][A-Za-z0-9]+/g, 'ID')
      .replace(/"created(_at)?":\d+/g, '"created":0');
  };
}

const before = process.env.BENCH_BEFORE;
if (!before) throw new Error('BENCH_BEFORE=<older checkout> is needed');
const after = await tree(repoRoot);
const older = await tree(before);
let differ = 0;
let outputs = 0;
let bytes = 0;
const compare = async (label: string, up: WireFormat, client: WireFormat, reads: Buffer[]): Promise<void> => {
  const a = await after(up, client, reads);
  const b = await older(up, client, reads);
  outputs++;
  bytes += a.length;
  if (a === b) return;
  if (++differ <= 2)
    console.log(
      `difference: ${label} ${up} → ${client}\n  this tree: ${a.slice(0, 600)}\n  before:    ${b.slice(0, 600)}`,
    );
};
const clients: WireFormat[] = ['messages', 'chat', 'gemini', 'responses'];
for (let seed = 1; seed <= streams; seed++) {
  const r = seeded(seed);
  const reads = randomReads(r, randomSseBytes(r));
  for (const c of clients) await compare(`random stream ${seed}`, 'chat', c, reads);
}
const answers = buildMockAnswers(20);
for (const up of ['chat', 'messages', 'gemini'] as WireFormat[]) {
  const whole = Buffer.concat(answers[up].streamWithUsage ?? answers[up].stream);
  for (let k = 0; k < 20; k++)
    for (const c of clients)
      if (c !== up) await compare(`mock cutting ${k}`, up, c, randomReads(seeded(1000 + k), whole));
}
console.log(
  `stream differential: ${differ} differences in ${outputs} outputs (${(bytes / 1e6).toFixed(1)} MB), this tree against ${before}`,
);
