// The config of the provider kinds of issue #26 (docs/providers.md): the shipped examples pass
// `npm run check-config`, and settings on a type they do not belong to are refused by name.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { ConfigError, parseConfig } from '../../src/infra/config/load-config.ts';
import { node24, repoRoot } from '../helpers/start-gateway.ts';

for (const file of [
  'config/examples/openai-compatible.yaml',
  'config/examples/azure-openai.yaml',
  'config/examples/bedrock.yaml',
  'config/examples/vertex.yaml',
]) {
  t.test(`${file} passes check-config`, async (t) => {
    const r = spawnSync(node24, ['src/app/check-config.ts', file], { cwd: repoRoot, encoding: 'utf8' });
    t.equal(r.status, 0, r.stderr);
    t.match(r.stdout, `${file}: ok`);
  });
}

const withProvider = (p: string): string => `
keys: [ { id: k, secret: sk-config-test-1, workspace: w } ]
providers:
  p: ${p}
models:
  m: { routes: [ { provider: p, model: x } ] }
`;
const refused = (p: string): string => {
  try {
    parseConfig(withProvider(p), 'p.yaml', {});
    return '';
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
};

t.test('compat and the Azure settings are refused where they do not apply', async (t) => {
  t.match(refused('{ type: anthropic, base_url: "http://a", api_key: k, compat: vllm }'), /providers\/p/);
  t.match(refused('{ type: openai, api: responses, base_url: "http://a", api_key: k, compat: vllm }'), /providers\/p/);
  t.match(refused('{ type: openai, base_url: "http://a", api_key: k, compat: lmstudio }'), /compat/);
  t.match(refused('{ type: openai, base_url: "http://a", api_key: k, api_version: "2024-10-21" }'), /providers\/p/);
  t.match(refused('{ type: openai, base_url: "http://a", api_key: k, auth: bearer }'), /providers\/p/);
  t.match(refused('{ type: azure-openai, api_key: k }'), /base_url/);
  t.match(refused('{ type: bedrock }'), /region/);
  t.match(refused('{ type: vertex, region: global }'), /project/);
  t.match(refused('{ type: bedrock, region: us-east-1, project: p }'), /providers\/p/);
  t.match(refused('{ type: bedrock, region: us-east-1, api: chat_completions }'), /api/);
  t.match(refused('{ type: openai, base_url: "http://a", api_key: k, api: converse }'), /api/);
  t.match(refused('{ type: openai, base_url: "http://a", api_key: k, region: us-east-1 }'), /providers\/p/);
  t.match(refused('{ type: bedrock, region: us-east-1, access_key_id: AKID }'), /secret_access_key/);
  t.match(
    refused('{ type: bedrock, region: us-east-1, api_key: k, access_key_id: A, secret_access_key: S }'),
    /providers\/p/,
  );
  t.match(refused('{ type: bedrock, region: us-east-1, api_key: k, profile: prod }'), /providers\/p/);
  t.match(refused('{ type: azure-openai, base_url: "http://a", api_key: k, tenant_id: t }'), /providers\/p/);
  t.match(
    refused('{ type: azure-openai, base_url: "http://a", auth: entra, client_secret: s }'),
    /tenant_id|client_id/,
  );
  t.match(refused('{ type: azure-openai, base_url: "http://a", auth: entra, api_key: k }'), /providers\/p/);
  // @azure/identity is loaded at the first token fetch: a tenant id it would refuse is refused at load, by name.
  t.match(
    refused(
      '{ type: azure-openai, base_url: "http://a", auth: entra, tenant_id: "a b/c", client_id: c, client_secret: s }',
    ),
    /tenant_id/,
  );
  t.match(refused('{ type: openai, base_url: "http://a", api_key: k, auth: entra }'), /providers\/p/);
  t.match(refused('{ type: azure-openai, base_url: "http://a", auth: bearer }'), /api_key/);
});

t.test('Bedrock static keys from an unset variable disable the provider, naming the variable', async (t) => {
  const loaded = parseConfig(
    withProvider('{ type: bedrock, region: us-east-1, access_key_id: "${AKID_T}", secret_access_key: "${SECRET_T}" }'),
    'b.yaml',
    {},
  );
  t.match(loaded.disabledProviders.get('p'), /AKID_T/);
  const enabled = parseConfig(
    withProvider('{ type: bedrock, region: us-east-1, access_key_id: "${AKID_T}", secret_access_key: "${SECRET_T}" }'),
    'b.yaml',
    { AKID_T: 'AKIDX', SECRET_T: 'secret-value-123' },
  );
  t.notOk(enabled.disabledProviders.has('p'));
});

t.test('and accepted where they do', async (t) => {
  t.equal(refused('{ type: openai, base_url: "http://a", api_key: k, compat: deepseek }'), '');
  t.equal(refused('{ type: openai, api: chat_completions, base_url: "http://a", api_key: k, compat: ollama }'), '');
  t.equal(refused('{ type: azure-openai, base_url: "http://a", api_key: k, api_version: "2024-10-21" }'), '');
  t.equal(refused('{ type: azure-openai, api: responses, base_url: "http://a", api_key: k, auth: bearer }'), '');
  t.equal(refused('{ type: bedrock, region: eu-west-1 }'), '');
  t.equal(refused('{ type: bedrock, region: eu-west-1, profile: prod }'), '');
  t.equal(refused('{ type: bedrock, region: eu-west-1, api: converse }'), '');
  t.equal(refused('{ type: vertex, region: global, project: p }'), '');
  t.equal(refused('{ type: bedrock, region: us-east-1, api_key: k }'), '');
  t.equal(refused('{ type: azure-openai, base_url: "http://a", auth: entra }'), '');
  t.equal(
    refused('{ type: azure-openai, base_url: "http://a", auth: entra, tenant_id: t, client_id: c, client_secret: s }'),
    '',
  );
  t.equal(refused('{ type: vertex, region: us-east5, project: p, credentials_file: /k.json }'), '');
});
