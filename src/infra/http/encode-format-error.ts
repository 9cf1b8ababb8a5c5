import type { EncodedError } from '../../../adapters/shared/chat-adapter.ts';
import { fallbackFormat, type FormatModule } from '../formats/formats.ts';
import type { GatewayError } from '../../ir/gateway-error.ts';

/** The error body the format's clients parse (README, "Families served"); OpenAI's on paths no format claims. */
export const encodeFormatError = (
  format: FormatModule | undefined,
  err: GatewayError,
  fallback: FormatModule = fallbackFormat,
): EncodedError => (format ?? fallback).encodeError(err);
