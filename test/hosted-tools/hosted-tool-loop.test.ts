// The hosted-tool loop against a scripted provider: what the emulators cannot script (two calls in
// one answer, polygate's and the client's), and how stream parts are numbered across rounds.
import t from 'tap';
import type { ChatRequest, Part } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import type { ChatProvider } from '../../src/services/providers/chat-provider.ts';
import { HostedToolLoop } from '../../src/families/chat/hosted-tool-loop.ts';
import { offerHostedTools } from '../../src/families/chat/hosted-tool-offer.ts';
import { parseConfig } from '../../src/infra/config/load-config.ts';
import { stringify } from 'yaml';
import { testConfig } from '../helpers/start-gateway.ts';
import { startSearchWeb } from '../emulators/search-web.ts';

const web = await startSearchWeb();
t.teardown(() => web.close());
const { config } = parseConfig(
  stringify(
    testConfig({
      search_backends: { local: { kind: 'searxng', url: `${web.url}/search` } },
      hosted_tools: { search_backend: 'local' },
    }),
  ),
  'test.yaml',
  {},
);

const request: ChatRequest = {
  model: 'm',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'q' }] }],
  tools: [
    { type: 'builtin', kind: 'web-search', name: 'web_search', options: { max_uses: 3 } },
    { type: 'function', name: 'get_time', parameters: { type: 'object' } },
  ],
  sampling: {},
  stream: false,
  extensions: {},
};
const usage = { inputTokens: 10, outputTokens: 5 };
const finish = { reason: 'tool-calls' as const, raw: 'tool_calls' };

/** A provider that answers each call with the next scripted parts, and records the requests. */
function scripted(rounds: Part[][]): ChatProvider & { seen: ChatRequest[] } {
  const seen: ChatRequest[] = [];
  const next = (r: ChatRequest): Part[] => (seen.push(r), rounds.shift() ?? [{ type: 'text', text: 'done' }]);
  return {
    name: 'p',
    type: 'openai',
    wireFormat: 'openai-chat',
    seen,
    complete: async (r): Promise<ChatResult> => {
      const parts = next(r);
      const calls = parts.some((p) => p.type === 'tool-call');
      return { id: 'x', model: 'm', parts, finish: calls ? finish : { reason: 'stop', raw: 'stop' }, usage };
    },
    openStream: async (r) => {
      const parts = next(r);
      return (async function* (): AsyncGenerator<StreamEvent> {
        yield { type: 'start', id: 'x', model: 'm' };
        for (const [i, p] of parts.entries()) {
          if (p.type === 'text') {
            yield { type: 'text-start', index: i };
            yield { type: 'text-delta', index: i, text: p.text };
            yield { type: 'text-end', index: i };
          } else if (p.type === 'tool-call') {
            yield { type: 'tool-input-start', index: i, id: p.id, name: p.name };
            yield { type: 'tool-input-delta', index: i, json: p.args };
            yield { type: 'tool-input-end', index: i };
          }
        }
        const calls = parts.some((p) => p.type === 'tool-call');
        yield { type: 'finish', finish: calls ? finish : { reason: 'stop', raw: 'stop' }, usage };
      })();
    },
  };
}

t.test("polygate's call and the client's in one answer: polygate's runs, the client's ends the answer", async (t) => {
  const offer = offerHostedTools(request, new Set(), config)!;
  const inner = scripted([
    [
      { type: 'tool-call', id: 'a', name: 'web_search', args: '{"query":"q"}' },
      { type: 'tool-call', id: 'b', name: 'get_time', args: '{}' },
    ],
  ]);
  const loop = new HostedToolLoop(inner, offer);
  const r = await loop.complete(offer.request, 'm', { signal: new AbortController().signal, warn: () => {} });
  t.same(
    r.parts.map((p) => p.type),
    ['hosted-call', 'hosted-result', 'tool-call'],
  );
  t.equal(inner.seen.length, 1, 'the upstream is not called again: the client runs its tool');
  t.equal(r.finish.reason, 'tool-calls');
  t.match(r.usage, { inputTokens: 10, webSearchRequests: 1 });
});

t.test('streamed: parts are numbered across rounds, usage is summed, one start', async (t) => {
  const offer = offerHostedTools({ ...request, stream: true }, new Set(), config)!;
  const inner = scripted([
    [
      { type: 'text', text: 'Searching.' },
      { type: 'tool-call', id: 'a', name: 'web_search', args: '{"query":"q"}' },
    ],
    [{ type: 'text', text: `Found ${web.url}/page/a` }],
  ]);
  const loop = new HostedToolLoop(inner, offer);
  const events: StreamEvent[] = [];
  for await (const e of await loop.openStream(offer.request, 'm', {
    signal: new AbortController().signal,
    warn: () => {},
  }))
    events.push(e);
  t.equal(events.filter((e) => e.type === 'start').length, 1);
  const indexed = events.flatMap((e) => ('index' in e ? [`${e.type}@${e.index}`] : []));
  t.same(indexed, [
    'text-start@0',
    'text-delta@0',
    'text-end@0',
    'hosted-call@2',
    'hosted-result@3',
    'text-start@4',
    'text-delta@4',
    'text-citation@4',
    'text-end@4',
  ]);
  const end = events.at(-1)!;
  t.match(end, {
    type: 'finish',
    finish: { reason: 'stop' },
    usage: { inputTokens: 20, outputTokens: 10, webSearchRequests: 1 },
  });
  // The second round carried the call and its result.
  t.match(inner.seen[1].messages.at(-1), {
    role: 'user',
    parts: [{ type: 'tool-result', callId: 'a', name: 'web_search' }],
  });
});

t.test('no backend: web_search is not taken over (dropped by the policy as before); web_fetch still is', async (t) => {
  const bare = { ...config, hosted_tools: { ...config.hosted_tools, search_backend: undefined } };
  t.equal(offerHostedTools(request, new Set(), bare), undefined);
  const withFetch = offerHostedTools(
    { ...request, tools: [...request.tools, { type: 'builtin', kind: 'web-fetch', name: 'web_fetch', options: {} }] },
    new Set(),
    bare,
  );
  t.same([...withFetch!.names], ['web_fetch']);
  t.match(withFetch!.request.tools, [
    { type: 'builtin', kind: 'web-search' },
    { name: 'get_time' },
    { name: 'web_fetch' },
  ]);
});
