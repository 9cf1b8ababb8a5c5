// The relay's target without `url.parse` (src/infra/upstream/relay-target.ts): what http-proxy and
// node:http read of it (protocol, hostname, port, host, path) as url.parse gave it, for the base
// URLs operators configure and the upstream paths the relay builds, and no deprecation warning.
import { parse as parseUrl } from 'node:url';
import t from 'tap';
import { relayTargetOf } from '../../src/infra/upstream/relay-target.ts';

const bases = [
  'http://127.0.0.1:8080',
  'https://api.anthropic.com',
  'https://api.openai.com/v1',
  'https://example.com:443/prefix/v1',
  'http://localhost:9999/base',
  'http://[::1]:7000',
  'https://my-resource.openai.azure.com/openai/deployments/gpt-4o',
];
const paths = [
  '/v1/messages',
  '/chat/completions',
  '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
  '/v1beta/models/gemini-2.5-flash:generateContent',
  '/chat/completions?api-version=2024-10-21',
  '/v1beta/models/org_model.v2-1:countTokens',
];

// First: url.parse's own warning (test below) comes a turn after its call.
t.test('no deprecation warning', async (t) => {
  const warned: string[] = [];
  const onWarning = (w: Error & { code?: string }) => warned.push(w.code ?? w.name);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  relayTargetOf('https://api.anthropic.com/v1/messages');
  await new Promise((r) => setImmediate(r));
  t.same(warned, []);
});

t.test('the fields http-proxy and node:http read are what url.parse gave', async (t) => {
  for (const base of bases)
    for (const path of paths) {
      const href = base + path;
      const legacy = parseUrl(href);
      const now = relayTargetOf(href);
      t.same(
        { protocol: now.protocol, hostname: now.hostname, path: now.path, pathname: now.pathname, search: now.search },
        {
          protocol: legacy.protocol,
          hostname: legacy.hostname,
          path: legacy.path,
          pathname: legacy.pathname,
          search: legacy.search,
        },
        href,
      );
      // The port a request goes to: the same, a default port left to the protocol in both.
      const port = (u: { port: string | null; protocol: string | null }) =>
        Number(u.port || (u.protocol === 'https:' ? 443 : 80));
      t.equal(port(now), port(legacy), `${href}: port`);
    }
});
