// The six voices are distinct espeak-ng voices, and every speed maps to a rate and tempo whose
// product is the requested pace.
import t from 'tap';
import { speechVoices } from '../../src/ir/speech-request.ts';
import { baseRate, espeakVoices, rateFor } from '../../src/families/speech/espeak.ts';

t.test('six distinct voice settings', async (t) => {
  const settings = speechVoices.map((v) => `${espeakVoices[v].voice}/${espeakVoices[v].pitch}`);
  t.equal(new Set(settings).size, 6);
});

t.test('speed → rate × tempo = base rate × speed, rate inside espeak’s range, tempo inside atempo’s', async (t) => {
  for (const speed of [0.25, 0.3, 0.5, 1, 1.7, 2.8, 4]) {
    const { rate, tempo } = rateFor(speed);
    t.ok(Math.abs(rate * tempo - baseRate * speed) < 1e-9, `speed ${speed}`);
    t.ok(rate >= 80 && rate <= 450);
    t.ok(tempo >= 0.5 && tempo <= 100);
  }
  t.same(rateFor(1), { rate: baseRate, tempo: 1 });
});
