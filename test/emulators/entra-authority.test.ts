// The Entra ID authority emulator, proven by Microsoft's own @azure/identity (ClientSecretCredential
// through @azure/msal-node, `authorityHost` pointed at it): a token for the Cognitive Services scope
// with the right secret, cached by the library, and Entra's AADSTS7000215 refusal of a wrong secret.
import t from 'tap';
import { ClientSecretCredential } from '@azure/identity';
import { entraApp, startEntraAuthority } from './entra-authority.ts';

const authority = await startEntraAuthority();
t.teardown(() => authority.close());
const scope = 'https://cognitiveservices.azure.com/.default';
const credential = (secret: string): ClientSecretCredential =>
  new ClientSecretCredential(entraApp.tenantId, entraApp.clientId, secret, {
    authorityHost: authority.url,
    disableInstanceDiscovery: true,
    tlsOptions: { ca: authority.ca },
    retryOptions: { maxRetries: 0 },
  });

t.test('a token for the scope, with the client secret checked; the library caches it', async (t) => {
  const c = credential(entraApp.clientSecret);
  const tok = await c.getToken(scope);
  t.ok(tok && authority.issued.has(tok.token), 'a token the authority issued');
  t.ok((tok?.expiresOnTimestamp ?? 0) > Date.now() + 3_000_000, 'expires in about an hour');
  t.match(authority.tokenRequests[0], {
    grant_type: 'client_credentials',
    client_id: entraApp.clientId,
    client_secret: entraApp.clientSecret,
    scope,
  });
  const again = await c.getToken(scope);
  t.equal(again?.token, tok?.token, 'the cached token');
  t.equal(authority.tokenRequests.length, 1, 'one token request');
});

t.test('a wrong secret is refused with AADSTS7000215', async (t) => {
  const e = await credential('not-the-secret')
    .getToken(scope)
    .catch((err: unknown) => err);
  t.match(String((e as Error).message), /AADSTS7000215/);
});
