import t from 'tap';
import { parseWrittenLyrics } from '../../src/families/tune/lyrics-writer.ts';

t.test('reads Title, Tags and Lyrics from an answer in the asked form', async (t) => {
  t.same(parseWrittenLyrics('Title: Harbour Lights\nTags: folk, acoustic\nLyrics:\n[Verse]\nBoats\n', 'theme'), {
    title: 'Harbour Lights',
    tags: 'folk, acoustic',
    text: '[Verse]\nBoats',
  });
});

t.test('tolerates markdown emphasis and quotes around the labels and title', async (t) => {
  t.same(parseWrittenLyrics('**Title:** "Night Train"\n**Lyrics:**\nRails hum', 'trains'), {
    title: 'Night Train',
    tags: 'pop',
    text: 'Rails hum',
  });
});

t.test('an answer without the form is the lyrics, with a title from the theme', async (t) => {
  t.same(parseWrittenLyrics('just some words', 'city lights after rain tonight again'), {
    title: 'City Lights After Rain Tonight',
    tags: 'pop',
    text: 'just some words',
  });
});

t.test('an empty answer falls back to the theme', async (t) => {
  t.same(parseWrittenLyrics('  ', 'rain'), { title: 'Rain', tags: 'pop', text: 'rain' });
});
