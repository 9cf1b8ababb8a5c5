// CPU per relayed response of the secret scrub over its header values (pass-through.ts runs
// `provider.scrub` on every relayed header value), with 10 and 10,000 client keys configured.
// Run from a tree's root: ./node_modules/.bin/node bench/scrub-micro.ts [root]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const imp = (p: string) => import(pathToFileURL(resolve(root, p)).href);
const { secretsOf } = await imp('src/services/providers/scrub-secrets.ts');
const { HttpChatProvider } = await imp('src/services/providers/http-chat-provider.ts');
const { chatCodecOf } = await imp('src/services/providers/provider-codec.ts');

// A typical OpenAI answer's headers, as the relay scrubs them.
const headerValues = [
  'application/json',
  'Fri, 27 Nov 2026 06:00:00 GMT',
  'org-abcdefgh1234',
  '412',
  '2024-02-01',
  'req_0123456789abcdef0123456789abcdef',
  '10000',
  '9999',
  '6ms',
  '200000',
  '199873',
  '38ms',
  'max-age=31536000; includeSubDomains; preload',
  'nosniff',
  'cloudflare',
  '8e1a2b3c4d5e6f70-IAD',
];
for (const keys of [10, 10_000]) {
  const cfg = {
    type: 'openai',
    base_url: 'http://127.0.0.1:1/v1',
    api_key: 'sk-upstream-bench-0123456789',
    api: 'chat_completions',
  };
  const config = {
    providers: { p: cfg },
    keys: Array.from({ length: keys }, (_, i) => ({ secret: `pg-client-key-${String(i).padStart(8, '0')}-x` })),
  };
  const p = new HttpChatProvider(
    'p',
    cfg,
    chatCodecOf(cfg),
    undefined,
    { firstByteMs: 1, idleMs: 1 },
    undefined,
    16,
    secretsOf(config),
  );
  const n = Number(process.env.N ?? (keys > 100 ? 2_000 : 200_000));
  let sink = 0;
  for (let i = 0; i < n / 10; i++) for (const v of headerValues) sink += p.scrub(v).length;
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) for (const v of headerValues) sink += p.scrub(v).length;
  const d = process.cpuUsage(t0);
  console.log(
    `${keys} keys: ${((d.user + d.system) / n).toFixed(2)} us CPU per relayed response (${headerValues.length} headers) [${sink}]`,
  );
}
