// Random upstream Chat Completions streams as the bytes of their reads (for differential tests of
// the stream path against another tree, and of the Chat decoder's text template): text with multi-byte UTF-8, reasoning, refusals,
// tool calls, the usage chunk, errors and broken JSON, framed with LF, CRLF or CR line ends,
// `data:` with or without its space, comments, `event:`/`id:`/`retry:` lines, data split over
// lines, a BOM, stray invalid bytes, and cut into reads at random byte boundaries (so a character
// is split between reads).

/** A small seeded generator (mulberry32): the same seed, the same streams. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];

const pieces = [
  'Hello',
  ' wörld',
  ' 😀',
  ' 日本語',
  ' "quoted"',
  ' back\\slash',
  ' new\nline',
  ' tab\t',
  ' é',
  ' \u2028',
  '{',
  '}',
  ' ',
  '',
];

function text(r: Rand): string {
  let s = '';
  for (let i = int(r, 4); i >= 0; i--) s += pick(r, pieces);
  return s;
}

/** The JSON `data` of one stream's chunks, in order (`[DONE]` included when the stream has it). */
function chunks(r: Rand): string[] {
  const base = { id: 'chatcmpl-x' + int(r, 1000), object: 'chat.completion.chunk', created: 1, model: 'gpt-x' };
  const chunk = (delta: object, finish: string | null = null, extra: object = {}): string =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
  const out = [chunk({ role: 'assistant', content: '', refusal: null })];
  let tool = -1;
  for (let i = int(r, 12); i >= 0; i--) {
    const k = r();
    if (k < 0.45) out.push(chunk({ content: text(r) }));
    else if (k < 0.55) out.push(chunk({ reasoning_content: text(r) }));
    else if (k < 0.6) out.push(chunk({ refusal: text(r) }));
    else if (k < 0.72) {
      tool++;
      out.push(
        chunk({
          tool_calls: [{ index: tool, id: `call_${tool}`, type: 'function', function: { name: 'f', arguments: '' } }],
        }),
      );
    } else if (k < 0.85 && tool >= 0)
      out.push(
        chunk({
          tool_calls: [
            { index: tool, function: { arguments: JSON.stringify({ a: text(r) }).slice(0, 1 + int(r, 9)) } },
          ],
        }),
      );
    else if (k < 0.88) out.push('{"broken": ');
    else if (k < 0.9) out.push(JSON.stringify({ error: { message: 'overloaded ' + text(r), type: 'server_error' } }));
    else out.push(chunk({ content: text(r) }, null, { usage: null }));
  }
  if (r() < 0.9) out.push(chunk({}, pick(r, ['stop', 'length', 'tool_calls', 'content_filter'])));
  if (r() < 0.6)
    out.push(
      JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } }),
    );
  if (r() < 0.9) out.push('[DONE]');
  return out;
}

/** One stream's bytes, framed as an upstream might frame it. */
export function randomSseBytes(r: Rand): Buffer {
  const eol = pick(r, ['\n', '\n', '\r\n', '\r']);
  const lines: string[] = [];
  if (r() < 0.1) lines.push(': ping', '');
  for (const data of chunks(r)) {
    if (r() < 0.1)
      lines.push(pick(r, [': keep-alive', 'id: 7', 'retry: 100', 'retry: x', 'foo: bar', 'event', 'data']));
    if (r() < 0.15) lines.push(pick(r, ['event: message', 'event:chunk', 'event: ']));
    const prefix = r() < 0.2 ? 'data:' : 'data: ';
    // JSON split over two data lines: the reader joins them with a newline, which JSON allows
    // between tokens (a cut elsewhere gives text that is not JSON, which the decoder reports).
    const cut = r() < 0.1 ? data.indexOf(',') : -1;
    if (cut > 0) lines.push(prefix + data.slice(0, cut + 1), prefix + data.slice(cut + 1));
    else lines.push(prefix + data);
    lines.push('');
    if (r() < 0.05) lines.push('');
  }
  let s = lines.join(eol);
  if (r() < 0.15) s = s.slice(0, int(r, s.length + 1)); // cut short
  let b = Buffer.from(s);
  if (r() < 0.1) b = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]);
  if (r() < 0.1) {
    // A stray invalid byte (a lone continuation or a lead without its tail) somewhere.
    const at = int(r, b.length + 1);
    b = Buffer.concat([
      b.subarray(0, at),
      Buffer.from([pick(r, [0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff])]),
      b.subarray(at),
    ]);
  }
  return b;
}

/** The bytes cut into reads at random boundaries: single bytes, small pieces or whole. */
export function randomReads(r: Rand, b: Buffer): Buffer[] {
  const reads: Buffer[] = [];
  const max = pick(r, [1, 3, 17, 64, 400, b.length + 1]);
  for (let at = 0; at < b.length;) {
    const n = 1 + int(r, max);
    reads.push(b.subarray(at, at + n));
    at += n;
  }
  return reads;
}
