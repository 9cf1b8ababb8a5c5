// What a request used besides chat tokens, noted by the family handlers for its usage record:
// characters spoken and audio seconds (`openai-audio`), tasks submitted (`tune`).

export type Metered = {
  characters?: number;
  /** A promise when the seconds are known only once the audio has been written. */
  audioSeconds?: number | Promise<number | undefined>;
  tasks?: number;
};

const metered = new WeakMap<object, Metered>();

export function meter(state: object, m: Metered): void {
  metered.set(state, { ...metered.get(state), ...m });
}

export const meteredOf = (state: object): Metered | undefined => metered.get(state);
