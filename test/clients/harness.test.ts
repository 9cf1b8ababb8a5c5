// The client harness's own pieces, so the client tests cannot pass for the wrong reason: the
// capture proxy forwards untouched but stores no secret, the stored fixtures hold none, the
// answer checker rejects broken answers, and the tool responder reads tools in all four formats.
import t from 'tap';
import { startAnthropicUpstream } from '../emulators/anthropic-upstream.ts';
import { redactHeaders, startCaptureProxy } from './capture-proxy.ts';
import { loadFixtures } from './fixtures.ts';
import { offeredTools, toolResponder } from './tool-responder.ts';
import { checkAnswer } from './wire-answer.ts';

t.test('the capture proxy forwards the request as sent and stores it without secrets', async (t) => {
  const emu = await startAnthropicUpstream();
  const proxy = await startCaptureProxy(emu.url);
  t.teardown(async () => {
    await proxy.close();
    await emu.close();
  });
  const body = '{"model":"m","max_tokens":8,  "messages":[{"role":"user","content":"hi"}]}';
  const res = await fetch(`${proxy.url}/v1/messages?key=sk-in-query`, {
    method: 'POST',
    headers: {
      'x-api-key': 'sk-secret-1',
      authorization: 'Bearer sk-secret-2',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'b1,b2',
      'content-type': 'application/json',
    },
    body,
  });
  t.equal(res.status, 200);
  await res.text();
  t.equal(emu.requests[0]?.raw, body, 'the upstream got the bytes as sent');
  t.equal(emu.requests[0]?.headers['x-api-key'], 'sk-secret-1', 'and the real key');
  const c = proxy.captured[0]!;
  t.equal(c.body, body, 'the capture keeps the bytes');
  t.equal(c.path, '/v1/messages?key=<redacted>');
  t.equal(c.headers['x-api-key'], '<redacted>');
  t.equal(c.headers.authorization, '<redacted>');
  t.equal(c.headers['anthropic-beta'], 'b1,b2', 'other headers kept');
  t.notOk(
    JSON.stringify(c).includes('sk-secret') || JSON.stringify(c).includes('sk-in-query'),
    'no secret anywhere in the capture',
  );
});

t.test('no stored fixture holds a credential', async (t) => {
  const fixtures = loadFixtures();
  t.ok(fixtures.length > 0);
  for (const f of fixtures) {
    t.same(redactHeaders(f.headers), f.headers, `${f.file}: credential headers redacted`);
    t.notMatch(f.path, /[?&]key=(?!<redacted>)/, `${f.file}: no key in the query`);
  }
});

t.test('the answer checker rejects what a client would reject', async (t) => {
  const sse = (frames: Array<[string, unknown]>): string =>
    frames.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
  const whole = sse([
    ['message_start', { type: 'message_start', message: {} }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  t.same(checkAnswer('anthropic', true, 'text/event-stream', whole), []);
  t.not(
    checkAnswer('anthropic', true, 'text/event-stream', whole.split('event: message_delta')[0]!).length,
    0,
    'a cut stream',
  );
  t.not(checkAnswer('anthropic', true, 'application/json', whole).length, 0, 'not an event stream');
  t.not(
    checkAnswer('openai-chat', true, 'text/event-stream', 'data: {"object":"chat.completion.chunk","choices":[]}\n\n')
      .length,
    0,
    'no [DONE], no finish_reason',
  );
  t.not(
    checkAnswer(
      'openai-responses',
      true,
      'text/event-stream',
      sse([
        ['response.created', { type: 'response.created' }],
        ['error', { type: 'error' }],
      ]),
    ).length,
    0,
    'ends in an error',
  );
  t.not(checkAnswer('gemini', false, 'application/json', '{"error":{"code":400}}').length, 0, 'an error body');
  t.same(
    checkAnswer('gemini', false, 'application/json', '{"candidates":[{"content":{"parts":[]},"finishReason":"STOP"}]}'),
    [],
  );
});

t.test('the tool responder finds tools in every format and waits for the result', async (t) => {
  const schema = { type: 'object', properties: { p: { type: 'string' } } };
  t.same(
    offeredTools({ tools: [{ name: 'a', input_schema: schema }] }).map((x) => x.name),
    ['a'],
    'Messages',
  );
  t.same(
    offeredTools({ tools: [{ type: 'function', function: { name: 'b', parameters: schema } }] }).map((x) => x.name),
    ['b'],
    'Chat',
  );
  t.same(
    offeredTools({
      tools: [
        { type: 'function', name: 'c', parameters: schema },
        { type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'd', parameters: schema }] },
      ],
    }).map((x) => x.name),
    ['c', 'd'],
    'Responses, namespace',
  );
  t.same(
    offeredTools({ tools: [{ functionDeclarations: [{ name: 'e', parametersJsonSchema: schema }] }] }).map(
      (x) => x.name,
    ),
    ['e'],
    'Gemini',
  );
  const r = toolResponder({
    marker: 'MK1',
    pick: (tools) => (tools.some((x) => x.name === 'a') ? { name: 'a', args: { p: 'x' } } : undefined),
  });
  const first = r({ method: 'POST', path: '/', headers: {}, body: { tools: [{ name: 'a', input_schema: schema }] } });
  t.equal(first?.kind, 'tool');
  const second = r({
    method: 'POST',
    path: '/',
    headers: {},
    body: { messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'MK1' }] }] },
  });
  t.same(second, { kind: 'text', text: 'The tool reported MK1.' });
  t.same([r.calls, r.resultsSeen, r.leaks], [1, 1, 0]);
});
