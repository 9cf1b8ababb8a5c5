// Structure-aware mutation of upstream SSE streams for the decoder fuzz suite: a recorded stream
// (test/fixtures/<format>/*.chunks.jsonl) with frames edited (test/fuzz/mutate-json.ts), dropped,
// repeated, moved out of order, cut mid-JSON, renamed, or with foreign frames put in between.
import fc from 'fast-check';
import { applyEdits, edits, nastyValue, poolsOf, wireText } from './mutate-json.ts';

export type Frame = { event?: string; data: string };
export type Stream = { frames: Frame[]; end: boolean };

type FrameEdit =
  | { op: 'edit'; at: number; list: Parameters<typeof applyEdits>[1] }
  | { op: 'drop'; at: number }
  | { op: 'repeat'; at: number }
  | { op: 'swap'; at: number; to: number }
  | { op: 'insert'; at: number; frame: Frame }
  | { op: 'cut'; at: number; keep: number }
  | { op: 'rename'; at: number; event: string | undefined };

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Mutants of the recorded streams, and now and then frames that are anything at all. */
export function streams(recorded: Frame[][], maxEdits = 6): fc.Arbitrary<Stream> {
  const all = recorded.flat();
  const payloads = all.map((f) => parse(f.data)).filter((v) => v !== undefined);
  const pools = poolsOf(payloads);
  const names = [...new Set(all.flatMap((f) => (f.event === undefined ? [] : [f.event])))];
  const eventName: fc.Arbitrary<string | undefined> = fc.oneof(
    fc.constant(undefined),
    names.length > 0 ? fc.constantFrom(...names) : fc.constant('message'),
    fc.constantFrom('error', 'ping', 'message', '', 'done'),
    fc.string({ maxLength: 12 }),
  );
  const data: fc.Arbitrary<string> = fc.oneof(
    fc.constantFrom('[DONE]', '', '{', '{}', '[]', 'null', '"x"', '1e999', ': keep-alive'),
    nastyValue.map((v) => wireText(v)),
    fc.constantFrom(...all.map((f) => f.data)),
    fc.string({ maxLength: 40 }),
  );
  const at = fc.noBias(fc.nat());
  const edit: fc.Arbitrary<FrameEdit> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ op: fc.constant('edit' as const), at, list: edits(pools, 3) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('drop' as const), at }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('repeat' as const), at }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('swap' as const), at, to: fc.nat() }) },
    {
      weight: 2,
      arbitrary: fc.record({ op: fc.constant('insert' as const), at, frame: fc.record({ event: eventName, data }) }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('cut' as const), at, keep: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), at, event: eventName }) },
  );
  const mutant = fc
    .record({ base: fc.constantFrom(...recorded), list: fc.array(edit, { maxLength: maxEdits }), end: fc.boolean() })
    .map(({ base, list, end }) => ({ frames: applyFrameEdits(base, list), end }));
  const anything = fc.record({
    frames: fc.array(fc.record({ event: eventName, data }), { maxLength: 12 }),
    end: fc.boolean(),
  });
  return fc.oneof({ weight: 5, arbitrary: mutant }, { weight: 1, arbitrary: anything });
}

function applyFrameEdits(base: Frame[], list: FrameEdit[]): Frame[] {
  const frames = base.map((f) => ({ ...f }));
  for (const e of list) {
    if (frames.length === 0 && e.op !== 'insert') continue;
    const i = e.at % Math.max(frames.length, 1);
    switch (e.op) {
      case 'edit': {
        const v = parse(frames[i].data);
        if (v !== undefined) frames[i].data = wireText(applyEdits(v, e.list));
        break;
      }
      case 'drop':
        frames.splice(i, 1);
        break;
      case 'repeat':
        frames.splice(i, 0, { ...frames[i] });
        break;
      case 'swap': {
        const j = e.to % frames.length;
        [frames[i], frames[j]] = [frames[j], frames[i]];
        break;
      }
      case 'insert':
        frames.splice(e.at % (frames.length + 1), 0, { ...e.frame });
        break;
      case 'cut':
        frames[i].data = frames[i].data.slice(0, e.keep % (frames[i].data.length + 1));
        break;
      case 'rename':
        frames[i] = e.event === undefined ? { data: frames[i].data } : { event: e.event, data: frames[i].data };
        break;
      default: {
        const never: never = e;
        throw new Error(`unknown frame edit ${String(never)}`);
      }
    }
  }
  return frames;
}
