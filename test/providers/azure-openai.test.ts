// Azure OpenAI's envelope (src/services/providers/azure-openai.ts): the path of each OpenAI path
// on a resource, the credential header, and the prompt-filter chunk that opens Azure's streams.
import t from 'tap';
import { openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import { azureAuthHeaders, azureChatCodec, azurePath } from '../../src/services/providers/azure-openai.ts';

t.test('deployment paths carry the version; v1 paths do not', async (t) => {
  t.equal(
    azurePath('/chat/completions', 'my deploy', '2024-10-21'),
    '/openai/deployments/my%20deploy/chat/completions?api-version=2024-10-21',
  );
  t.equal(azurePath('/responses', 'gpt-5', '2025-03-01-preview'), '/openai/responses?api-version=2025-03-01-preview');
  t.equal(azurePath('/responses?stream=true', 'gpt-5', 'v'), '/openai/responses?stream=true&api-version=v');
  t.equal(azurePath('/chat/completions', 'gpt-4o', undefined), '/openai/v1/chat/completions');
  t.equal(azurePath('/responses', 'gpt-5', undefined), '/openai/v1/responses');
});

t.test('api-key by default, a bearer when auth says so', async (t) => {
  t.same(azureAuthHeaders({ type: 'azure-openai', api_key: 'k-123' }), { 'api-key': 'k-123' });
  t.same(azureAuthHeaders({ type: 'azure-openai', api_key: 'tok', auth: 'bearer' }), { authorization: 'Bearer tok' });
});

t.test("the prompt-filter chunk does not become the stream's start", async (t) => {
  const dec = azureChatCodec(openaiChatUpstreamCodec).createStreamDecoder();
  const filter = {
    choices: [],
    created: 0,
    id: '',
    model: '',
    object: '',
    prompt_filter_results: [{ prompt_index: 0 }],
  };
  t.same(dec.push({ data: JSON.stringify(filter) }), []);
  const first = dec.push({
    data: JSON.stringify({
      id: 'chatcmpl-az1',
      model: 'gpt-4o-2024-11-20',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }],
    }),
  });
  t.match(first[0], { type: 'start', id: 'chatcmpl-az1', model: 'gpt-4o-2024-11-20' });
});
