// Shared assertion for the gemini adapter tests: a call must fail with a 400 GatewayError whose
// `param` names the field at fault.
import type tap from 'tap';
import { GatewayError } from '../../../src/ir/gateway-error.ts';

export type Asserts = Pick<typeof tap, 'ok' | 'equal' | 'match' | 'fail'>;

export function assertInvalid(t: Asserts, fn: () => unknown, param: string, message?: RegExp): void {
  try {
    fn();
    t.fail(`expected a 400 naming ${param}`);
  } catch (e) {
    t.ok(e instanceof GatewayError, 'a GatewayError');
    const err = e as GatewayError;
    t.equal(err.kind, 'invalid-request', `kind of ${param}`);
    t.equal(err.status, 400);
    t.equal(err.param, param);
    if (message) t.match(err.message, message);
  }
}

/** The GatewayError kind a call throws, or undefined if it returns or throws something else. */
export function thrownKind(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof GatewayError ? e.kind : undefined;
  }
  return undefined;
}
