// Provider entries for the cloud emulators (test/emulators/: Bedrock, Vertex, Azure OpenAI and its
// Entra ID authority), written once for the cloud e2e tests and the client suite's cloud routes
// (issue #26, docs/providers.md). Each test spreads one and adds what it is about (an `api`, a
// session token, a wrong secret), so its config shows only that.
import type { Test } from 'tap';
import { startAzureOpenAIUpstream } from '../emulators/azure-openai-upstream.ts';
import { bedrockCredentials } from '../emulators/bedrock-upstream.ts';
import type { Emulator } from '../emulators/emulator-types.ts';
import { entraApp, startEntraAuthority, trustAuthority, type EntraAuthority } from '../emulators/entra-authority.ts';

type Entry = Record<string, unknown>;

/** A Bedrock provider at the emulator, with no credentials (the default chain's). */
export const bedrockAt = (emu: { url: string }): Entry => ({ type: 'bedrock', region: 'us-east-1', base_url: emu.url });

/** The static AWS keys the Bedrock emulator verifies SigV4 signatures with. */
export const bedrockKeys: Entry = {
  access_key_id: bedrockCredentials.accessKeyId,
  secret_access_key: bedrockCredentials.secretAccessKey,
};

/** A Bedrock provider signing with the emulator's static keys (InvokeModel; `api: 'converse'` for Converse). */
export const bedrockSigned = (emu: { url: string }): Entry => ({ ...bedrockAt(emu), ...bedrockKeys });

/** A Vertex provider at the emulator, in `region`, with no credentials file. */
export const vertexAt = (emu: { url: string; project: string }, region = 'us-east5'): Entry => ({
  type: 'vertex',
  project: emu.project,
  region,
  base_url: emu.url,
});

/** An Azure OpenAI provider fetching Entra ID tokens from the authority emulator (`auth: entra`, no secret yet). */
export const entraAt = (emu: { url: string }, authority: Pick<EntraAuthority, 'url'>): Entry => ({
  type: 'azure-openai',
  base_url: emu.url,
  auth: 'entra',
  tenant_id: entraApp.tenantId,
  client_id: entraApp.clientId,
  authority_host: authority.url,
});

/**
 * An Entra ID authority this process trusts (for an in-process gateway's @azure/identity) and an
 * Azure OpenAI emulator that accepts the tokens it issues; both closed when the test ends.
 */
export async function startEntraAzure(t: Test): Promise<{ authority: EntraAuthority; azure: Emulator }> {
  const authority = await startEntraAuthority();
  t.teardown(() => authority.close());
  t.teardown(trustAuthority(authority));
  const azure = await startAzureOpenAIUpstream({ entraTokens: authority.issued });
  t.teardown(() => azure.close());
  return { authority, azure };
}
