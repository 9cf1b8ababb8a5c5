// The openai-chat emulator in the dialects of OpenAI-compatible servers (vLLM, Ollama, DeepSeek,
// OpenRouter), proven by the official `openai` SDK, the client those servers document: every
// answer parses, and the fields each dialect adds are where the servers put them.
import t from 'tap';
import OpenAI from 'openai';
import { startOpenAIChatUpstream, type ChatDialect } from './openai-chat-upstream.ts';

type Loose = Record<string, unknown>;
const expected: Record<Exclude<ChatDialect, 'openai'>, string> = {
  vllm: 'reasoning_content',
  deepseek: 'reasoning_content',
  ollama: 'reasoning',
  openrouter: 'reasoning',
};

for (const dialect of Object.keys(expected) as Array<keyof typeof expected>) {
  t.test(dialect, async (t) => {
    const emu = await startOpenAIChatUpstream(dialect);
    t.teardown(() => emu.close());
    const client = new OpenAI({ apiKey: 'sk-compat-test', baseURL: emu.url, maxRetries: 0 });

    t.test('a completion carries the reasoning in the dialect field', async (t) => {
      emu.script({ kind: 'thinking', thinking: 'Think first.', signature: '', text: 'Answer.' });
      const res = await client.chat.completions.create({
        model: 'm',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'q' }],
      });
      const message = res.choices[0].message as unknown as Loose;
      t.equal(message[expected[dialect]], 'Think first.');
      t.equal(res.choices[0].message.content, 'Answer.');
      const usage = res.usage as unknown as Loose;
      if (dialect === 'deepseek') t.type(usage.prompt_cache_hit_tokens, 'number');
      if (dialect === 'openrouter') t.type(usage.cost, 'number');
    });

    t.test('a stream carries reasoning deltas, then text, then usage', async (t) => {
      emu.script({ kind: 'thinking', thinking: 'Think first.', signature: '', text: 'Answer.' });
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'q' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let reasoning = '';
      let text = '';
      let usage: unknown;
      for await (const c of stream) {
        const delta = (c.choices[0]?.delta ?? {}) as Loose;
        if (typeof delta[expected[dialect]] === 'string') reasoning += delta[expected[dialect]] as string;
        text += c.choices[0]?.delta.content ?? '';
        if (c.usage) usage = c.usage;
      }
      t.equal(reasoning, 'Think first.');
      t.equal(text, 'Answer.');
      t.ok(usage, 'the usage chunk arrived');
    });

    t.test('a streamed tool call', async (t) => {
      emu.script({ kind: 'tool', name: 'get_weather', args: '{"city":"Paris"}', argChunks: ['{"city":', '"Paris"}'] });
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'q' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        stream: true,
      });
      let args = '';
      let deltas = 0;
      let finish: string | null = null;
      for await (const c of stream) {
        for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
          deltas++;
          args += tc.function?.arguments ?? '';
        }
        finish = c.choices[0]?.finish_reason ?? finish;
      }
      t.equal(args, '{"city":"Paris"}');
      // Ollama sends the call whole and ends it with `stop`; the others stream it as OpenAI does.
      t.equal(deltas, dialect === 'ollama' ? 1 : 3);
      t.equal(finish, dialect === 'ollama' ? 'stop' : 'tool_calls');
    });
  });
}
