// The GatewayError a decoder or encoder throws, for asserting on its fields: anything else it throws
// propagates as is, and returning instead of throwing is an error (so the test fails, loudly).
import { GatewayError } from '../../src/ir/gateway-error.ts';

export function thrownGatewayError(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a GatewayError');
}
