// Every rule of the spec's family E tables and Limits table, through a running polygate: each
// answered with a 400 invalid_request_error whose message names the field.
import t from 'tap';
import { startGateway, testConfig, TEST_KEY } from '../helpers/start-gateway.ts';

const gw = await startGateway(testConfig({}));
t.teardown(() => gw.stop());

const ok = { model: 'echo', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
const post = async (body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', authorization: `Bearer ${TEST_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { type: string; error: { type: string; message: string } } };
};

t.test('the valid baseline passes', async (t) => {
  t.equal((await post(ok)).status, 200);
});

const cases: Array<[string, Record<string, unknown>, string]> = [
  ['model missing', { ...ok, model: undefined }, 'model'],
  ['model empty', { ...ok, model: '' }, 'model'],
  ['model over 256 characters', { ...ok, model: 'm'.repeat(257) }, 'model'],
  ['max_tokens missing', { ...ok, max_tokens: undefined }, 'max_tokens'],
  ['max_tokens not greater than 1', { ...ok, max_tokens: 1 }, 'max_tokens'],
  ['max_tokens not an integer', { ...ok, max_tokens: 2.5 }, 'max_tokens'],
  ['messages missing', { ...ok, messages: undefined }, 'messages'],
  ['a system role inside messages', { ...ok, messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'hi' }] }, 'messages.0.role'],
  ['an unknown role', { ...ok, messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role'],
  ['temperature 0 (must be above 0)', { ...ok, temperature: 0 }, 'temperature'],
  ['temperature 1 (must be below 1)', { ...ok, temperature: 1 }, 'temperature'],
  ['top_p 0', { ...ok, top_p: 0 }, 'top_p'],
  ['top_p 1', { ...ok, top_p: 1 }, 'top_p'],
  ['top_k 0', { ...ok, top_k: 0 }, 'top_k'],
  ['thinking budget below 1024', { ...ok, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1023 } }, 'thinking.budget_tokens'],
  ['thinking budget not below max_tokens', { ...ok, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } }, 'thinking.budget_tokens'],
  ['tool name empty', { ...ok, tools: [{ name: '', input_schema: { type: 'object' } }] }, 'tools.0.name'],
  ['tool name over 64 characters', { ...ok, tools: [{ name: 't'.repeat(65), input_schema: { type: 'object' } }] }, 'tools.0.name'],
  ['custom tool without input_schema', { ...ok, tools: [{ name: 'x' }] }, 'tools.0.input_schema'],
  ['metadata.user_id over 256 characters', { ...ok, metadata: { user_id: 'u'.repeat(257) } }, 'metadata.user_id'],
  ['tool_choice of an unknown type', { ...ok, tool_choice: { type: 'sometimes' } }, 'tool_choice'],
];

for (const [name, body, field] of cases) {
  t.test(name, async (t) => {
    const r = await post(body);
    t.equal(r.status, 400);
    t.equal(r.body.type, 'error');
    t.equal(r.body.error.type, 'invalid_request_error');
    t.ok(r.body.error.message.includes(field), `message names ${field}: ${r.body.error.message}`);
  });
}

t.test('anthropic-version header required and date-shaped', async (t) => {
  const missing = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify(ok),
  });
  t.equal(missing.status, 400);
  t.match((await missing.json()).error.message, /anthropic-version/);
  const bad = await post(ok, { 'anthropic-version': 'latest' });
  t.equal(bad.status, 400);
  t.match(bad.body.error.message, /anthropic-version/);
  t.equal((await post(ok, { 'anthropic-version': '2026-10-21' })).status, 200, 'any well-formed date');
});
