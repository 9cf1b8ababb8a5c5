import t from 'tap';
import { parseWrittenLyrics } from '../../src/families/tune/lyrics-writer.ts';

/** [what the case shows, the model's answer, the theme, the lyrics read from it] */
const cases: Array<[string, string, string, ReturnType<typeof parseWrittenLyrics>]> = [
  [
    'reads Title, Tags and Lyrics from an answer in the asked form',
    'Title: Harbour Lights\nTags: folk, acoustic\nLyrics:\n[Verse]\nBoats\n',
    'theme',
    { title: 'Harbour Lights', tags: 'folk, acoustic', text: '[Verse]\nBoats' },
  ],
  [
    'tolerates markdown emphasis and quotes around the labels and title',
    '**Title:** "Night Train"\n**Lyrics:**\nRails hum',
    'trains',
    { title: 'Night Train', tags: 'pop', text: 'Rails hum' },
  ],
  [
    'an answer without the form is the lyrics, with a title from the theme',
    'just some words',
    'city lights after rain tonight again',
    { title: 'City Lights After Rain Tonight', tags: 'pop', text: 'just some words' },
  ],
  ['an empty answer falls back to the theme', '  ', 'rain', { title: 'Rain', tags: 'pop', text: 'rain' }],
];

for (const [name, answer, theme, lyrics] of cases) {
  t.test(name, async (t) => {
    t.same(parseWrittenLyrics(answer, theme), lyrics);
  });
}
