// Vertex AI on loopback: Google's OAuth token endpoint for service-account JWTs at `${url}/token`
// (test/helpers/google-token-redirect.ts sends google-auth-library's posts there; each assertion's
// RS256 signature verified against the service account's key, its audience, issuer and expiry
// checked) and the model paths
//   POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict | :streamRawPredict
//   POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent | :streamGenerateContent
// (v1beta1 too, as @google/genai uses it), answered only with a token it issued, by the Anthropic and
// Gemini emulators byte for byte (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude).
import { generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicUpstream } from './anthropic-upstream.ts';
import { listenLoopback, readRequest, relayTo, scriptedReplies, sendJson, type Json } from './emulator-server.ts';
import type { Emulator } from './emulator-types.ts';
import { startGeminiUpstream } from './gemini-upstream.ts';

export type VertexEmulator = Emulator & {
  project: string;
  /** A service-account key file whose token_uri is this emulator. */
  keyFile: string;
  /** A key file of the same account with another private key: its assertions are refused. */
  wrongKeyFile: string;
  /** Token requests served (a cached token is not asked for again). */
  tokenRequests: () => number;
};

const b64url = (s: string): Buffer => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');

export async function startVertexUpstream(project = 'polygate-test-project'): Promise<VertexEmulator> {
  const [anthropic, gemini] = await Promise.all([startAnthropicUpstream(), startGeminiUpstream()]);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `polygate@${project}.iam.gserviceaccount.com`;
  const issued = new Set<string>();
  let tokenRequests = 0;
  const s = scriptedReplies(() => {
    anthropic.reset();
    gemini.reset();
  });
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  const listening = await listenLoopback(server);
  const url = listening.url;
  const dir = mkdtempSync(join(tmpdir(), 'polygate-vertex-'));
  const keyFileOf = (pem: string, name: string): string => {
    const file = join(dir, name);
    writeFileSync(
      file,
      JSON.stringify({
        type: 'service_account',
        project_id: project,
        private_key_id: randomBytes(20).toString('hex'),
        private_key: pem,
        client_email: clientEmail,
        client_id: '100000000000000000001',
        auth_uri: 'https://accounts.google.com/o/oauth2/auth',
        token_uri: `${url}/token`,
      }),
    );
    return file;
  };
  const pem = (k: typeof privateKey): string => k.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyFile = keyFileOf(pem(privateKey), 'sa.json');
  const wrongKeyFile = keyFileOf(pem(other.privateKey), 'sa-wrong.json');

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { raw, body, recorded } = await readRequest(req);
    const u = new URL(req.url ?? '/', url);
    if (u.pathname === '/token') {
      // gaxios sends the form url-encoded (older versions: JSON).
      const form = raw.trimStart().startsWith('{')
        ? new URLSearchParams(JSON.parse(raw) as Record<string, string>)
        : new URLSearchParams(raw);
      return token(res, form);
    }
    s.requests.push(recorded);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !issued.has(bearer))
      return googleError(
        res,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    const m =
      /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(anthropic|google)\/models\/([^/:]+):(\w+)$/.exec(
        u.pathname,
      );
    if (!m || req.method !== 'POST') return googleError(res, 404, 'NOT_FOUND', 'Requested entity was not found.');
    if (m[2] !== project)
      return googleError(res, 403, 'PERMISSION_DENIED', `Permission denied on resource project ${m[2]}.`);
    const [, , , , publisher, model, method] = m;
    const reply = s.next(recorded);
    if (publisher === 'anthropic') {
      if (method !== 'rawPredict' && method !== 'streamRawPredict')
        return googleError(res, 404, 'NOT_FOUND', 'Requested entity was not found.');
      const b = body as Json;
      if (typeof b !== 'object' || b === null || typeof b.anthropic_version !== 'string' || 'model' in b)
        return googleError(
          res,
          400,
          'INVALID_ARGUMENT',
          'anthropic_version is required and model is not allowed in the body',
        );
      if (reply) anthropic.script(reply);
      const { anthropic_version: _v, anthropic_beta: betas, ...rest } = b;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-api-key': 'vertex-inner',
        'anthropic-version': '2023-06-01',
      };
      if (Array.isArray(betas)) headers['anthropic-beta'] = betas.join(',');
      const inner = { model, ...rest, ...(method === 'streamRawPredict' ? { stream: true } : {}) };
      return relayTo(`${anthropic.url}/v1/messages`, JSON.stringify(inner), headers, res);
    }
    if (reply) gemini.script(reply);
    const alt = u.searchParams.get('alt');
    return relayTo(
      `${gemini.url}/v1beta/models/${model}:${method}${alt ? `?alt=${alt}` : ''}`,
      raw,
      { 'content-type': 'application/json', 'x-goog-api-key': 'vertex-inner' },
      res,
    );
  }

  function token(res: ServerResponse, form: URLSearchParams): void {
    tokenRequests++;
    const jwt = form.get('assertion') ?? '';
    const [h, p, sig] = jwt.split('.');
    const claims = p ? (JSON.parse(b64url(p).toString('utf8')) as Json) : {};
    const ok =
      form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
      sig !== undefined &&
      verify('RSA-SHA256', Buffer.from(`${h}.${p}`), publicKey, b64url(sig)) &&
      claims.iss === clientEmail &&
      claims.aud === 'https://oauth2.googleapis.com/token' &&
      typeof claims.exp === 'number' &&
      claims.exp * 1000 > Date.now() &&
      String(claims.scope).includes('cloud-platform');
    if (!ok) return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    const access = `ya29.emulator-${randomBytes(24).toString('base64url')}`;
    issued.add(access);
    json(res, 200, { access_token: access, expires_in: 3599, token_type: 'Bearer' });
  }

  return {
    url,
    project,
    keyFile,
    wrongKeyFile,
    tokenRequests: () => tokenRequests,
    ...s,
    close: async () => {
      await listening.close();
      await Promise.all([anthropic.close(), gemini.close()]);
    },
  };
}

function googleError(res: ServerResponse, code: number, status: string, message: string): void {
  json(res, code, { error: { code, message, status } });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, {}, 'application/json; charset=UTF-8');
}
