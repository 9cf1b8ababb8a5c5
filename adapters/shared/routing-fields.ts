// What routing needs from a chat request, read without decoding it (docs/open-world.md): on a
// same-format route nothing else is read and the body reaches the upstream untouched, so a field,
// block or tool polygate does not know can never be refused by polygate on its way there.
import { invalid } from '../../src/ir/gateway-error.ts';
import { checkModelName } from '../../src/ir/model-name.ts';
import { isObject, optBool, type Json } from './narrow.ts';

export type RoutingFields = {
  /** The client-facing model name. */
  model: string;
  stream: boolean;
  /**
   * False when the request needs state polygate keeps (a Responses chain, item references, a
   * stored answer): such a request is translated even to an upstream of its own format.
   */
  relayable: boolean;
};

/** The body as an object: anything else is bad input before any route is chosen. */
export function bodyObject(body: unknown): Json {
  if (!isObject(body)) throw invalid('body', 'request body: expected a JSON object');
  return body;
}

/** `model` (a non-empty string, bounded, no control characters: src/ir/model-name.ts) and `stream` (a boolean, default false) from the body. */
export function bodyModelAndStream(b: Json): { model: string; stream: boolean } {
  if (b.model === undefined || b.model === null || b.model === '') throw invalid('model', 'model: field required');
  if (typeof b.model !== 'string') throw invalid('model', 'model: expected a string');
  return { model: checkModelName(b.model), stream: optBool(b.stream, 'stream') ?? false };
}
