// AWS's own Bedrock client pointed at the emulator, as the emulator tests build it: the HTTP/2
// endpoint, us-east-1, no retries (a refusal must show at once), and the emulator's credentials
// unless the test signs in another way.
import { BedrockRuntimeClient, type BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { bedrockCredentials, type BedrockEmulator } from './bedrock-upstream.ts';

export const bedrockSdkClient = (
  emu: BedrockEmulator,
  auth: Partial<BedrockRuntimeClientConfig> = { credentials: bedrockCredentials },
): BedrockRuntimeClient =>
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: emu.h2Url, maxAttempts: 1, ...auth });
