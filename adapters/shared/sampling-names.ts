// The IR's sampling knobs (SamplingKnobs) an upstream takes as they are, under its own names.
// Each encoder lists the knobs its wire carries unchanged; the others (a limit to check, a
// value to map, a knob the wire lacks) it handles itself, next to the table.
import type { SamplingKnobs } from '../../src/ir/chat-request.ts';

/** [IR knob, wire name] pairs, in the order the fields are written. */
export type SamplingNames = readonly (readonly [keyof SamplingKnobs, string])[];

/** Every knob `names` lists that the request sets, onto `out` under its wire name. */
export function copySampling(s: SamplingKnobs, names: SamplingNames, out: Record<string, unknown>): void {
  for (const [knob, wire] of names) {
    const v = s[knob];
    if (v !== undefined) out[wire] = v;
  }
}
