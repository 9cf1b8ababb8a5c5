// What a gateway loads at start (bench/RESULTS.md, "Session 9: start-up"): the cloud providers'
// auth libraries, the Bedrock signer and event-stream codec, the tokenizer and the HTML converter
// are loaded where they are first used, not when a config merely names a provider that needs them.
// Every module this process loads is recorded by a loader hook registered before the app is
// imported; a gateway with Azure (Entra), Vertex and Bedrock providers configured serves a chat
// on echo (usage reported, nothing estimated) without loading any of them.
import t from 'tap';
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
registerHooks({
  load(url, context, next) {
    loaded.add(url);
    return next(url, context);
  },
});

const { startInProcessApp } = await import('../helpers/in-process-app.ts');
const { testConfig, TEST_KEY } = await import('../helpers/start-gateway.ts');

const deferred = [
  '@azure/identity',
  'google-auth-library',
  '@aws-sdk/credential-providers',
  '@smithy/signature-v4',
  '@aws-crypto/sha256-js',
  '@smithy/eventstream-codec',
  'gpt-tokenizer',
  'html-to-text',
];
const loadedPackages = (): string[] =>
  deferred.filter((p) => [...loaded].some((url) => url.includes(`/node_modules/${p}/`)));

t.test('a chat on echo, with cloud providers configured, loads none of their libraries', async (t) => {
  const app = await startInProcessApp(
    t,
    testConfig({
      providers: {
        az: {
          type: 'azure-openai',
          base_url: 'http://127.0.0.1:9',
          auth: 'entra',
          tenant_id: 'tenant-1',
          client_id: 'client-1',
          client_secret: 'secret-1',
        },
        vx: { type: 'vertex', region: 'global', project: 'p' },
        br: { type: 'bedrock', region: 'us-east-1', access_key_id: 'AKIDEXAMPLE', secret_access_key: 'secret-2' },
      },
      models: {
        'az-m': { routes: [{ provider: 'az', model: 'd' }] },
        'vx-m': { routes: [{ provider: 'vx', model: 'gemini-2.5-flash' }] },
        'br-m': { routes: [{ provider: 'br', model: 'anthropic.claude' }] },
      },
    }),
  );
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(res.status, 200);
  t.ok((await res.json()).choices, 'an answer in Chat shape');
  t.ok(
    [...loaded].some((url) => url.includes('/src/services/providers/entra-token.ts')),
    'the hook sees the providers being loaded',
  );
  t.same(loadedPackages(), []);
});
