import type { ChatFormatModule } from '../../infra/formats/formats.ts';
import { translationWarnings } from '../../infra/metrics/registry.ts';
import { warningFieldLabel, warningsHeader } from '../../infra/metrics/warning-fields.ts';
import type { ChatState } from '../../services/runtime/request-state.ts';
import { traceOf } from '../../services/tracing/request-trace.ts';

/**
 * The warnings of one route: counted in the metric as they come, then named in full in the
 * answer's header and the trace. One object a route (its `warn` the one closure the encoders call).
 */
export class RouteWarnings {
  readonly #list: string[] = [];
  readonly #state: ChatState;
  readonly #format: string;
  readonly #upstreamFormat: string;

  constructor(state: ChatState, format: ChatFormatModule, upstreamFormat: string) {
    this.#state = state;
    this.#format = format.name;
    this.#upstreamFormat = upstreamFormat;
  }

  readonly warn = (field: string, message: string): void => {
    this.#list.push(`${field}: ${message}`);
    // The label is bounded (src/infra/metrics/warning-fields.ts); the header names the field in full.
    translationWarnings.inc({
      inbound_format: this.#format,
      upstream_format: this.#upstreamFormat,
      field: warningFieldLabel(this.#format, field),
    });
  };

  addTo(headers: Record<string, string>): void {
    const warnings = this.#list;
    const value = warningsHeader(warnings);
    if (value) headers['x-polygate-warnings'] = value;
    // The answering route's own: a failed route's warnings do not describe the answer.
    this.#state.warnings = warnings.length > 0 ? warnings : undefined;
    traceOf(this.#state)?.warnings(warnings);
  }
}
