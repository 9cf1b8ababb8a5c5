// The client suite's cloud routes (issue #26, scripts/test-clients.ts): Claude on the Bedrock
// emulator (InvokeModel, SigV4 verified) and on the Vertex emulator (rawPredict, a service-account
// token), where Claude Code's body is relayed; Claude on Bedrock Converse and Gemini on Vertex
// (generateContent), where Codex CLI's Responses requests are translated. Providers and models for
// the harness's gateway, whose service-account token requests go to the Vertex emulator
// (test/helpers/google-token-preload.ts).
import { join } from 'node:path';
import { startBedrockUpstream } from '../emulators/bedrock-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { startVertexUpstream } from '../emulators/vertex-upstream.ts';
import { repoRoot } from '../helpers/start-gateway.ts';
import { bedrockSigned, vertexAt } from '../e2e/cloud-providers.ts';
import { modelRoutes } from '../helpers/model-routes.ts';

export const clouds = ['bedrock', 'vertex', 'bedrock-converse', 'vertex-gemini'] as const;
export type Cloud = (typeof clouds)[number];
export const isCloud = (u: string): u is Cloud => (clouds as readonly string[]).includes(u);
/** The cloud routes each CLI takes: Claude Code's body relayed in the envelope, Codex's translated. */
export const cloudsOf = (cli: string): readonly Cloud[] =>
  cli === 'claude-code' ? ['bedrock', 'vertex'] : cli === 'codex' ? ['bedrock-converse', 'vertex-gemini'] : [];

export type CloudRoutes = {
  /** Client-facing model of each cloud. */
  model: Record<Cloud, string>;
  emulator: Record<Cloud, Emulator>;
  /** For startHarness: the providers, the models, the gateway's environment. */
  harness: { providers: Record<string, unknown>; models: Record<string, unknown>; env: Record<string, string> };
  close(): Promise<void>;
};

export async function startCloudRoutes(): Promise<CloudRoutes> {
  const [bedrock, vertex] = await Promise.all([startBedrockUpstream(), startVertexUpstream()]);
  const model: Record<Cloud, string> = {
    bedrock: 'm-bedrock-claude',
    vertex: 'm-vertex-claude',
    'bedrock-converse': 'm-bedrock-converse',
    'vertex-gemini': 'm-vertex-gemini',
  };
  const aws = bedrockSigned(bedrock);
  const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  return {
    model,
    emulator: { bedrock, vertex, 'bedrock-converse': bedrock, 'vertex-gemini': vertex },
    harness: {
      providers: {
        br: aws,
        'br-conv': { ...aws, api: 'converse' },
        vx: { ...vertexAt(vertex), credentials_file: vertex.keyFile },
      },
      models: modelRoutes({
        [model.bedrock]: `br/${claude}`,
        [model.vertex]: 'vx/claude-sonnet-4-5@20250929',
        [model['bedrock-converse']]: `br-conv/${claude}`,
        [model['vertex-gemini']]: 'vx/gemini-2.5-pro',
      }),
      env: {
        NODE_OPTIONS: `--import=${join(repoRoot, 'test/helpers/google-token-preload.ts')}`,
        POLYGATE_TEST_GOOGLE_TOKEN_URL: `${vertex.url}/token`,
      },
    },
    close: async () => {
      await Promise.all([bedrock.close(), vertex.close()]);
    },
  };
}
