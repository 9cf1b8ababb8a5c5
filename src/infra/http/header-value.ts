/**
 * A value from a client, an upstream or the config as a response-header value: every byte outside
 * visible ASCII and space (controls, DEL, `%` itself, anything non-ASCII) percent-encoded from its
 * UTF-8, and the result cut at `maxChars`. Node throws ERR_INVALID_CHAR on a CR, LF or NUL in a
 * header and on any character above U+00FF; a throw inside a relay's callback ends the process
 * (issue #30, finding 2), so no value reaches a header without passing through here.
 */
export function headerValue(value: string, maxChars = 512): string {
  // Nearly every value is plain ASCII already: no copy then.
  const plain = /^[\x20-\x24\x26-\x7e]*$/.test(value);
  const encoded = plain ? value : value.replace(/[^\x20-\x24\x26-\x7e]/gu, percentEncoded);
  return encoded.length > maxChars ? encoded.slice(0, maxChars) : encoded;
}

function percentEncoded(c: string): string {
  // A lone surrogate has no UTF-8: Buffer writes U+FFFD for it, which is encoded like any other.
  let out = '';
  for (const b of Buffer.from(c, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/**
 * The `x-polygate-route` value: the provider (a config name) and the upstream model (possibly the
 * client's). Kept per provider and model (the same few pairs on every request; the joined string
 * and the check's flat copy of it were made per request): models up to `routeModelChars`
 * characters, at most `routeValuesMax` pairs (emptied when full, as a client may name many models).
 */
export function routeHeader(provider: string, model: string): string {
  if (model.length > routeModelChars) return headerValue(`${provider}/${model}`);
  let byModel = routeValues.get(provider);
  if (byModel === undefined) routeValues.set(provider, (byModel = new Map()));
  let value = byModel.get(model);
  if (value === undefined) {
    if (++routeValuesHeld > routeValuesMax) {
      routeValues.clear();
      routeValues.set(provider, (byModel = new Map()));
      routeValuesHeld = 1;
    }
    byModel.set(model, (value = headerValue(`${provider}/${model}`)));
  }
  return value;
}
const routeModelChars = 256;
const routeValuesMax = 1000;
const routeValues = new Map<string, Map<string, string>>();
let routeValuesHeld = 0;
