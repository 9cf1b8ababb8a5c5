// The files the console page loads, each at a fixed path mapped to a fixed file: the page's own
// (public/console/) and the libraries' ESM builds from node_modules (preact, htm, uPlot). No path
// is built from the URL, so no request can name another file (`..`, encoded slashes, NUL).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');

type Asset = { file: string; type: string; rewrite?: (text: string) => string };

const js = 'text/javascript; charset=utf-8';
const css = 'text/css; charset=utf-8';

/**
 * preact/hooks imports the bare name `preact`, which a browser cannot resolve without an import
 * map (an inline script the CSP refuses): it is pointed at the served copy instead. The build
 * has that import exactly once; a version that changes it fails here, loudly, at the first load.
 */
function pointHooksAtPreact(text: string): string {
  const bare = 'from"preact"';
  if (text.split(bare).length !== 2) throw new Error(`preact/hooks: expected one import of "preact"`);
  return text.replace(bare, 'from"./preact.mjs"');
}

/** URL path under /console/ → the file served. */
export const consoleAssets: Readonly<Record<string, Asset>> = {
  'vendor/preact.mjs': { file: 'node_modules/preact/dist/preact.mjs', type: js },
  'vendor/hooks.mjs': { file: 'node_modules/preact/hooks/dist/hooks.mjs', type: js, rewrite: pointHooksAtPreact },
  'vendor/htm.mjs': { file: 'node_modules/htm/dist/htm.mjs', type: js },
  'vendor/uplot.mjs': { file: 'node_modules/uplot/dist/uPlot.esm.js', type: js },
  'vendor/uplot.css': { file: 'node_modules/uplot/dist/uPlot.min.css', type: css },
  'console.css': { file: 'public/console/console.css', type: css },
  'app.js': { file: 'public/console/app.js', type: js },
  'api.js': { file: 'public/console/api.js', type: js },
  'ui.js': { file: 'public/console/ui.js', type: js },
  'pages/providers.js': { file: 'public/console/pages/providers.js', type: js },
  'pages/models.js': { file: 'public/console/pages/models.js', type: js },
  'pages/keys.js': { file: 'public/console/pages/keys.js', type: js },
  'pages/spend.js': { file: 'public/console/pages/spend.js', type: js },
  'pages/requests.js': { file: 'public/console/pages/requests.js', type: js },
  'pages/budgets.js': { file: 'public/console/pages/budgets.js', type: js },
};

export const consolePage = 'public/console/index.html';

const cache = new Map<string, string>();

/** A file's text, read once (the files are part of the install, not of the config). */
export function assetText(file: string, rewrite?: (text: string) => string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(resolve(root, file), 'utf8');
    if (rewrite) text = rewrite(text);
    cache.set(file, text);
  }
  return text;
}
