// local-speech finds its programs on PATH and names the Debian package for each one missing.
import t from 'tap';
import {
  describeMissing,
  findExecutable,
  findRecognizer,
  missingTools,
} from '../../src/families/speech/system-tools.ts';

t.test('found on this machine (CI installs them with apt-get)', async (t) => {
  t.ok(findExecutable('espeak-ng'));
  t.ok(findExecutable('ffmpeg'));
  t.ok(findRecognizer());
  t.same(missingTools('synthesis'), []);
  t.same(missingTools('recognition'), []);
});

t.test('on an empty PATH: each tool missing, with its package', async (t) => {
  t.same(missingTools('synthesis', '/nonexistent'), [
    { tool: 'ffmpeg', aptPackage: 'ffmpeg' },
    { tool: 'espeak-ng', aptPackage: 'espeak-ng' },
  ]);
  t.same(missingTools('recognition', '/nonexistent'), [
    { tool: 'ffmpeg', aptPackage: 'ffmpeg' },
    { tool: 'pocketsphinx', aptPackage: 'pocketsphinx' },
  ]);
  t.equal(
    describeMissing(missingTools('synthesis', '/nonexistent')),
    'ffmpeg, espeak-ng are not installed; install with: apt-get install ffmpeg espeak-ng',
  );
});
