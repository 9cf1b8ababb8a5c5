import { invalid } from './gateway-error.ts';

/**
 * The longest model name a client may send, in UTF-8 bytes. Real names are a few dozen bytes and
 * the vendors' own APIs refuse far shorter ones than a body allows (Anthropic: 256 characters); a
 * name reaches a response header, a log line and a usage-ledger row, so it is bounded where it
 * is read (docs/security.md, "Client values in headers and rows").
 */
export const MAX_MODEL_NAME_BYTES = 256;

/** C0 controls, DEL and C1 controls: never part of a model name, and unsafe in a header or a log line. */
const control = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The client's model name, checked: at most MAX_MODEL_NAME_BYTES bytes and no control character.
 * Anything else is a 400 naming `param` (the body's `model`; Gemini's is in the path).
 */
export function checkModelName(model: string, param = 'model'): string {
  // Length first, in code units: a name longer than the bound in UTF-16 is longer in UTF-8 too.
  if (model.length > MAX_MODEL_NAME_BYTES || Buffer.byteLength(model, 'utf8') > MAX_MODEL_NAME_BYTES)
    throw invalid(param, `${param}: at most ${MAX_MODEL_NAME_BYTES} bytes (got ${Buffer.byteLength(model, 'utf8')})`);
  const c = control.exec(model);
  if (c)
    throw invalid(
      param,
      `${param}: control character U+${c[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not allowed in a model name`,
    );
  return model;
}
