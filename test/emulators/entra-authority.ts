// A Microsoft Entra ID authority on loopback, for the client-credentials flow @azure/identity
// (through @azure/msal-node) runs with `authorityHost` pointed here: the tenant's OpenID metadata
// (GET /{tenant}/v2.0/.well-known/openid-configuration) and its token endpoint
// (POST /{tenant}/oauth2/v2.0/token, a form body with client_id, client_secret, scope and
// grant_type=client_credentials), which checks the client secret and answers Entra's JSON, or its
// `invalid_client` error (AADSTS7000215). MSAL refuses an authority that is not HTTPS, so this one
// serves TLS with a self-signed certificate made at start (`caFile` is it, for NODE_EXTRA_CA_CERTS).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendJson } from './emulator-server.ts';

export const entraApp = {
  tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
  clientId: 'c0ffee00-1234-4cde-8f00-0123456789ab',
  clientSecret: 'entra~Client.Secret-0123456789abcdefEXAMPLE',
};

export type EntraAuthority = {
  /** `https://127.0.0.1:PORT`: what `authorityHost` (polygate's `authority_host`) names. */
  url: string;
  /** The self-signed certificate (PEM) the authority serves. */
  caFile: string;
  ca: Buffer;
  /** The access tokens issued, in order (the resource emulator accepts these). */
  issued: Set<string>;
  /** Each token request's form fields, in order. */
  tokenRequests: Array<Record<string, string>>;
  /** Seconds each new token is valid for (`expires_in`). */
  expiresIn: number;
  close(): Promise<void>;
};

function selfSigned(): { key: Buffer; cert: Buffer; certFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'entra-authority-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}

const json = (res: ServerResponse, status: number, body: unknown): void =>
  sendJson(res, status, body, {}, 'application/json; charset=utf-8');

export async function startEntraAuthority(app = entraApp): Promise<EntraAuthority> {
  const { key, cert, certFile } = selfSigned();
  let n = 0;
  const state: EntraAuthority = {
    url: '',
    caFile: certFile,
    ca: cert,
    issued: new Set(),
    tokenRequests: [],
    expiresIn: 3599,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', state.url);
      const [, tenant, ...rest] = url.pathname.split('/');
      const path = rest.join('/');
      const base = `${state.url}/${tenant}`;
      if (tenant !== app.tenantId)
        return json(res, 400, {
          error: 'invalid_tenant',
          error_description: `AADSTS90002: Tenant '${tenant}' not found.`,
          error_codes: [90002],
        });
      if (req.method === 'GET' && path === 'v2.0/.well-known/openid-configuration')
        return json(res, 200, {
          token_endpoint: `${base}/oauth2/v2.0/token`,
          authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
          end_session_endpoint: `${base}/oauth2/v2.0/logout`,
          issuer: `${base}/v2.0`,
          jwks_uri: `${base}/discovery/v2.0/keys`,
          response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
          token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
        });
      if (req.method === 'POST' && path === 'oauth2/v2.0/token') {
        const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
        state.tokenRequests.push(form);
        if (form.grant_type !== 'client_credentials' || form.client_id !== app.clientId)
          return json(res, 400, {
            error: 'unauthorized_client',
            error_description: `AADSTS700016: Application with identifier '${form.client_id}' was not found in the directory.`,
            error_codes: [700016],
          });
        if (form.client_secret !== app.clientSecret)
          return json(res, 401, {
            error: 'invalid_client',
            error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${app.clientId}'.`,
            error_codes: [7000215],
          });
        const token = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra-issued-${++n}-${crypto.randomUUID()}`;
        state.issued.add(token);
        return json(res, 200, {
          token_type: 'Bearer',
          expires_in: state.expiresIn,
          ext_expires_in: state.expiresIn,
          access_token: token,
        });
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/**
 * Makes this process trust the authority's certificate (as NODE_EXTRA_CA_CERTS would at start), for
 * an in-process gateway whose @azure/identity calls it; the returned function restores the default.
 */
export function trustAuthority(a: EntraAuthority): () => void {
  const before = getCACertificates('default');
  setDefaultCACertificates([...before, a.ca.toString()]);
  return () => setDefaultCACertificates(before);
}
