// Hosted tools an upstream lacks: dropped with a warning (default) or refused per provider; a
// forced one always refused; what the decoder could not map reported (src/families/chat/hosted-tool-policy.ts).
import t, { type Test } from 'tap';
import type { BuiltinTool, ChatRequest, Tool } from '../../src/ir/chat-request.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import { applyHostedToolPolicy, type UnsupportedTools } from '../../src/families/chat/hosted-tool-policy.ts';
import { chatRequest } from '../helpers/chat-request.ts';

const fn: Tool = { type: 'function', name: 'f', parameters: { type: 'object' } };
const search: Tool = { type: 'builtin', kind: 'web-search', name: 'web_search', options: {} };
const ir = (patch: Partial<ChatRequest>): ChatRequest => chatRequest({ model: 'm', messages: [], ...patch });
const apply = (
  req: ChatRequest,
  policy: UnsupportedTools = 'drop',
  carried: ReadonlySet<BuiltinTool['kind']> = new Set(),
) => {
  const warnings: string[] = [];
  const out = applyHostedToolPolicy(req, 'p1', carried, policy, (f, m) => warnings.push(`${f}: ${m}`));
  return { out, warnings };
};
const refused = (t: Test, run: () => unknown, param: string): void => {
  try {
    run();
    t.fail(`expected a 400 naming ${param}`);
  } catch (e) {
    t.type(e, GatewayError);
    t.equal((e as GatewayError).status, 400);
    t.equal((e as GatewayError).param, param);
    t.match((e as GatewayError).message, /p1/, 'names the provider');
  }
};

t.test('drop (default): the hosted tool is left out with a warning naming it', async (t) => {
  const { out, warnings } = apply(ir({ tools: [search, fn], toolChoice: { type: 'auto' } }));
  t.same(out.tools, [fn]);
  t.same(out.toolChoice, { type: 'auto' });
  t.same(warnings, ["tools.0: the built-in tool 'web_search' is not available on provider 'p1'; dropped"]);
  t.same(
    apply(ir({ tools: [search] }), 'drop', new Set(['web-search'])).out.tools,
    [search],
    'kept where the upstream carries it',
  );
});

t.test('refuse: a 400 naming the tool and the provider', async (t) => {
  refused(t, () => apply(ir({ tools: [fn, search] }), 'refuse'), 'tools.1');
  refused(
    t,
    () =>
      apply(
        ir({
          tools: [fn],
          unmapped: [
            {
              field: 'tools.1',
              message: "tool type 'memory_20250818' cannot be translated; dropped",
              hostedTool: true,
            },
          ],
        }),
        'refuse',
      ),
    'tools.1',
  );
});

t.test('a forced tool that would be dropped is refused under drop too', async (t) => {
  refused(t, () => apply(ir({ tools: [search], toolChoice: { type: 'tool', name: 'web_search' } })), 'tool_choice');
  refused(
    t,
    () =>
      apply(
        ir({
          tools: [fn],
          toolChoice: { type: 'tool', name: 'web_fetch' },
          unmapped: [{ field: 'tools.1', message: 'x', hostedTool: true }],
        }),
      ),
    'tool_choice',
  );
  refused(t, () => apply(ir({ tools: [search], toolChoice: { type: 'required' } })), 'tool_choice');
  const moot = apply(ir({ tools: [search], toolChoice: { type: 'auto' } })).out;
  t.same(moot.tools, []);
  t.notOk('toolChoice' in moot, 'a choice among no tools is not sent');
});

t.test('what the decoder could not map is reported on every translated route', async (t) => {
  const { out, warnings } = apply(
    ir({
      tools: [fn],
      unmapped: [
        { field: 'messages.0.content.1', message: "content block type 'video' cannot be translated; dropped" },
      ],
    }),
  );
  t.same(out.tools, [fn]);
  t.same(warnings, ["messages.0.content.1: content block type 'video' cannot be translated; dropped"]);
});
