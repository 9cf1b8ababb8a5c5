// Every metric polygate exports, defined in this one file on one registry (DESIGN.md, "Style").
// Labels are bounded: families, formats, provider and key ids come from code or the config,
// never from request content.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'polygate_' });

const pathLabels = ['family', 'inbound_format', 'upstream_format', 'provider', 'mode', 'outcome'] as const;

export const requestsTotal = new Counter({
  name: 'polygate_requests_total',
  help: 'Client requests by translation path and outcome',
  labelNames: pathLabels,
  registers: [registry],
});

export const requestDuration = new Histogram({
  name: 'polygate_request_duration_seconds',
  help: 'Whole request time as the client sees it, streams until their last byte',
  labelNames: pathLabels,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

export const upstreamDuration = new Histogram({
  name: 'polygate_upstream_duration_seconds',
  help: 'Time from sending the upstream request to its response headers',
  labelNames: ['provider', 'upstream_format', 'outcome'],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const translationWarnings = new Counter({
  name: 'polygate_translation_warnings_total',
  help: 'Request fields dropped because the routed upstream cannot carry them',
  labelNames: ['inbound_format', 'upstream_format', 'field'],
  registers: [registry],
});

export const tokensTotal = new Counter({
  name: 'polygate_tokens_total',
  help: 'Tokens reported by upstreams (kind: input, output, reasoning, cache_read, cache_write)',
  labelNames: ['provider', 'kind'],
  registers: [registry],
});

export const inFlight = new Gauge({
  name: 'polygate_in_flight_requests',
  help: 'Requests being served now',
  labelNames: ['family'],
  registers: [registry],
});

export const openStreams = new Gauge({
  name: 'polygate_open_streams',
  help: 'Event streams being written to clients now',
  labelNames: ['family'],
  registers: [registry],
});

export const fallbacksTotal = new Counter({
  name: 'polygate_fallbacks_total',
  help: 'Routes abandoned for the next one, by the cause',
  labelNames: ['provider', 'cause'],
  registers: [registry],
});

// Family A music tasks (src/tune/).
export const tasksTotal = new Counter({
  name: 'polygate_tasks_total',
  help: 'Music and lyrics tasks by the state they reached: IN_PROGRESS when submitted, then SUCCESS or FAIL',
  labelNames: ['provider', 'action', 'status'],
  registers: [registry],
});

export const callbackDeliveriesTotal = new Counter({
  name: 'polygate_callback_deliveries_total',
  help: 'notify_hook delivery attempts by outcome (delivered, http_error, network_error, refused) and deliveries given up (abandoned)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const upstreamPollsTotal = new Counter({
  name: 'polygate_upstream_polls_total',
  help: 'Batched task queries sent to music providers, by outcome',
  labelNames: ['provider', 'outcome'],
  registers: [registry],
});

// Family B (speech): audio volume and synthesized text, per provider.
export const audioSecondsTotal = new Counter({
  name: 'polygate_audio_seconds_total',
  help: 'Seconds of audio by provider and direction (in: uploaded for recognition, out: synthesized)',
  labelNames: ['provider', 'direction'],
  registers: [registry],
});

export const speechCharactersTotal = new Counter({
  name: 'polygate_speech_characters_total',
  help: 'Characters of text synthesized into speech, by provider',
  labelNames: ['provider'],
  registers: [registry],
});
