// The Vertex AI emulator, proven by the vendors' own Vertex clients: Anthropic's Vertex SDK and
// @google/genai in Vertex mode, each authenticating through google-auth-library with a service
// account whose token endpoint is the emulator's.
import t from 'tap';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { GoogleGenAI } from '@google/genai';
import { GoogleAuth } from 'google-auth-library';
import { redirectGoogleTokens } from '../helpers/google-token-redirect.ts';
import { startVertexUpstream } from './vertex-upstream.ts';
import { emulatorForFile } from './emulator-fixture.ts';

const emu = await emulatorForFile(t, startVertexUpstream);
t.teardown(redirectGoogleTokens(`${emu.url}/token`));
const scopes = ['https://www.googleapis.com/auth/cloud-platform'];

t.test('Claude through AnthropicVertex: rawPredict and streamRawPredict', async (t) => {
  const client = new AnthropicVertex({
    region: 'us-east5',
    projectId: emu.project,
    baseURL: `${emu.url}/v1`,
    googleAuth: new GoogleAuth({ keyFile: emu.keyFile, scopes }),
    maxRetries: 0,
  });
  emu.script({ kind: 'text', text: 'Claude on Vertex.' }, { kind: 'text', text: 'streamed on Vertex' });
  const msg = await client.messages.create({
    model: 'claude-sonnet-4-5@20250929',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.match(msg.content[0], { type: 'text', text: 'Claude on Vertex.' });
  t.match(
    emu.requests[0].path,
    `/v1/projects/${emu.project}/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
  );
  const s = client.messages.stream({
    model: 'claude-sonnet-4-5@20250929',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hi' }],
  });
  t.match((await s.finalMessage()).content[0], { type: 'text', text: 'streamed on Vertex' });
  t.match(emu.requests[1].path, ':streamRawPredict');
});

t.test('Gemini through @google/genai in Vertex mode, streamed and not', async (t) => {
  const ai = new GoogleGenAI({
    vertexai: true,
    project: emu.project,
    location: 'global',
    googleAuthOptions: { keyFile: emu.keyFile, scopes },
    httpOptions: { baseUrl: emu.url },
  });
  emu.script({ kind: 'text', text: 'Gemini on Vertex.' }, { kind: 'text', text: 'one two three' });
  const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
  t.equal(r.text, 'Gemini on Vertex.');
  t.match(
    emu.requests[0].path,
    `/projects/${emu.project}/locations/global/publishers/google/models/gemini-2.5-flash:generateContent`,
  );
  let text = '';
  for await (const c of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'count' }))
    text += c.text ?? '';
  t.equal(text, 'one two three');
});

t.test('a service account with the wrong key gets no token', async (t) => {
  const auth = new GoogleAuth({ keyFile: emu.wrongKeyFile, scopes });
  await t.rejects(auth.getAccessToken(), /invalid_grant|Invalid JWT/);
});
