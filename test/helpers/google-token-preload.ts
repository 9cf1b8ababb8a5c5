// `node --import` this file to send a spawned gateway's service-account token requests to an
// emulator (google-token-redirect.ts), where the test cannot patch the process from inside: the
// client suite's polygate reaching the Vertex emulator (scripts/test-clients.ts). The target is
// POLYGATE_TEST_GOOGLE_TOKEN_URL; unset, nothing changes.
import { redirectGoogleTokens } from './google-token-redirect.ts';

const to = process.env.POLYGATE_TEST_GOOGLE_TOKEN_URL;
if (to) redirectGoogleTokens(to);
