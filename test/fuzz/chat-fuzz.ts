// The fuzz properties every chat wire format shares (one test file per format calls them with its
// own seeds). The property of every decoder: any input gives a value or throws a GatewayError
// (src/ir/gateway-error.ts), never a TypeError, RangeError or stack overflow; and what a decoder
// gives, every encoder takes the same way, so decode → encode in any direction holds it too.
import fc from 'fast-check';
import { relative } from 'node:path';
import type { Test } from 'tap';
import { anthropicClientCodec, anthropicUpstreamCodec } from '../../adapters/anthropic-messages/index.ts';
import { geminiClientCodec, geminiUpstreamCodec } from '../../adapters/gemini/index.ts';
import { openaiChatClientCodec, openaiChatUpstreamCodec } from '../../adapters/openai-chat/index.ts';
import {
  createResponsesClientCodec,
  responsesUpstreamCodec,
  sequentialIds,
} from '../../adapters/openai-responses/index.ts';
import type {
  ChatClientCodec,
  ChatUpstreamCodec,
  InboundContext,
  WireHeaders,
} from '../../adapters/shared/chat-adapter.ts';
import type { ChatRequest } from '../../src/ir/chat-request.ts';
import type { ChatResult } from '../../src/ir/chat-result.ts';
import { GatewayError } from '../../src/ir/gateway-error.ts';
import type { StreamEvent } from '../../src/ir/stream-event.ts';
import { streams, type Frame, type Stream } from './mutate-frames.ts';
import { bodies, fuzzParams, nastyValue, type Json } from './mutate-json.ts';
import { fixtureJsons } from './fixtures.ts';

/**
 * Runs `body`; a GatewayError is an answer, anything else thrown is a finding. So is a GatewayError
 * whose message shows a function's source or `[object Object]`: a wire key or value looked up on
 * Object.prototype (a field named `constructor`) or an object printed where a string was expected.
 */
export function gatewayErrorOr<T>(body: () => T): T | GatewayError {
  try {
    return body();
  } catch (e) {
    if (e instanceof GatewayError) {
      if (/\[native code\]|\[object Object\]/.test(e.message))
        throw new TypeError(`a GatewayError message printing an object: ${e.message.slice(0, 300)}`, { cause: e });
      return e;
    }
    throw e;
  }
}

/**
 * One fast-check property as one tap assertion. On failure the message carries what was thrown,
 * the command that replays it (FUZZ_SEED / FUZZ_PATH) and fast-check's report with the shrunk
 * counterexample (cut at 20,000 characters: the mutants may hold 100,000-character strings).
 */
export function fuzz<T>(t: Test, name: string, arb: fc.Arbitrary<T>, check: (value: T) => void): void {
  let last: unknown;
  try {
    fc.assert(
      fc.property(arb, (v) => {
        try {
          gatewayErrorOr(() => check(v));
        } catch (e) {
          last = e;
          throw e;
        }
      }),
      fuzzParams(),
    );
    t.pass(name);
  } catch (e) {
    const report = e instanceof Error ? e.message : String(e);
    const replay = /seed: (-?\d+), path: "([^"]*)"/.exec(report);
    const cause = (last instanceof Error ? (last.stack ?? last.message) : String(last))
      .split('\n')
      .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l))
      .join('\n');
    t.fail(
      `${name}: ${cause}\nreplay: FUZZ_SEED=${replay?.[1]} FUZZ_PATH=${replay?.[2]} tap ${relative(process.cwd(), process.argv[1] ?? '')}\n${report.slice(0, 20_000)}`,
    );
  }
}

export { caught } from '../helpers/caught.ts';

/** The same, for a counterexample found once and kept: must hold as a plain call. */
export function regression(t: Test, name: string, check: () => void): void {
  try {
    gatewayErrorOr(check);
    t.pass(name);
  } catch (e) {
    t.fail(`${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}

type ClientSide = { codec: ChatClientCodec; request: ChatRequest };

/** Every client codec with a valid request of its own format, for encoding results and streams. */
export function clientSides(): ClientSide[] {
  const ctx = (c: Partial<InboundContext> = {}): InboundContext => ({ headers: {}, params: {}, query: {}, ...c });
  const user = 'Weather in Paris?';
  return [
    {
      codec: anthropicClientCodec,
      request: anthropicClientCodec.decodeRequest(
        { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: user }] },
        ctx({ headers: { 'anthropic-version': '2023-06-01' } }),
      ),
    },
    {
      codec: openaiChatClientCodec,
      request: openaiChatClientCodec.decodeRequest({ model: 'm', messages: [{ role: 'user', content: user }] }, ctx()),
    },
    {
      codec: createResponsesClientCodec(sequentialIds()),
      request: createResponsesClientCodec(sequentialIds()).decodeRequest({ model: 'm', input: user }, ctx()),
    },
    {
      codec: geminiClientCodec,
      request: geminiClientCodec.decodeRequest(
        { contents: [{ role: 'user', parts: [{ text: user }] }] },
        ctx({ params: { model: 'm' } }),
      ),
    },
  ];
}

export const upstreamCodecs: ChatUpstreamCodec[] = [
  anthropicUpstreamCodec,
  openaiChatUpstreamCodec,
  responsesUpstreamCodec,
  geminiUpstreamCodec,
];

/** Encoder output goes on the wire as JSON: it must serialize (no cycles, no BigInt). */
const serialize = (v: unknown): string => JSON.stringify(v) ?? '';

function encodeEverywhere(result: ChatResult, clients: ClientSide[]): void {
  for (const c of clients) serialize(gatewayErrorOr(() => c.codec.encodeResult(result, c.request)));
}

function streamEverywhere(events: StreamEvent[], clients: ClientSide[]): void {
  for (const c of clients) {
    const enc = c.codec.createStreamEncoder(c.request);
    gatewayErrorOr(() => {
      for (const e of events)
        for (const f of enc.push(e))
          if (typeof f.data !== 'string') throw new TypeError(`${c.codec.format}: frame data is not a string`);
    });
  }
}

/** Runs an upstream stream decoder over frames; an error thrown mid-stream ends it, as in the pipeline. */
export function decodeStream(codec: ChatUpstreamCodec, s: Stream): StreamEvent[] {
  const dec = codec.createStreamDecoder();
  const out: StreamEvent[] = [];
  gatewayErrorOr(() => {
    for (const f of s.frames) out.push(...dec.push(f));
    if (s.end) out.push(...dec.end());
  });
  for (const e of out)
    if (e.type === 'error' && !(e.error instanceof GatewayError))
      throw new TypeError('an error event without a GatewayError');
  return out;
}

const status = fc.oneof(
  fc.constantFrom(400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529),
  fc.integer({ min: 100, max: 599 }),
  fc.integer(),
);
const headerValue = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('0', '1', '30', '-1', '1e999', 'NaN', '', 'Wed, 21 Oct 2015 07:28:00 GMT', '9'.repeat(400)),
  fc.string({ maxLength: 20 }),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
);
const headers: fc.Arbitrary<WireHeaders> = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'retry-after',
      'retry-after-ms',
      'x-ratelimit-reset-requests',
      'x-ratelimit-reset-tokens',
      'anthropic-ratelimit-requests-reset',
      'request-id',
      'x-request-id',
      'content-type',
    ),
    fc.string({ maxLength: 10 }),
  ),
  headerValue,
  { maxKeys: 4 },
);

export type ChatSeeds = {
  client: ChatClientCodec;
  upstream: ChatUpstreamCodec;
  /** Valid client requests of the format beyond its golden fixtures (test/fixtures/<format>/*.request.json). */
  requests: unknown[];
  contexts: fc.Arbitrary<InboundContext>;
  /** Valid upstream result bodies. */
  results: unknown[];
  /** Recorded upstream streams. */
  streams: Frame[][];
  /** Valid upstream error bodies. */
  errors: unknown[];
};

/** The five properties of a chat format (client requests, upstream results, streams, errors), as one test. */
export function fuzzChatFormat(t: Test, s: ChatSeeds): void {
  t.test(`${s.client.format} decoders answer any input with a value or a GatewayError`, async (t) => {
    fuzzEveryDecoder(t, { ...s, requests: [...fixtureJsons(s.client.format, '.request.json'), ...s.requests] });
  });
}

function fuzzEveryDecoder(t: Test, s: ChatSeeds): void {
  const clients = clientSides();
  const own = clients.find((c) => c.codec.format === s.client.format);
  if (own === undefined) throw new Error(`no client side for ${s.client.format}`);
  const decoded = s.results.map((r) => gatewayErrorOr(() => s.upstream.decodeResult(r)));
  const sampleResult = decoded.find((r): r is ChatResult => !(r instanceof GatewayError));
  if (sampleResult === undefined) throw new Error(`no result seed of ${s.upstream.format} decodes`);
  const sampleEvents = decodeStream(s.upstream, { frames: s.streams[0], end: true });

  t.test(
    'client request: decodeRequest, then every upstream encodeRequest and the own result and stream encoders',
    async (t) => {
      fuzz(t, 'decode and re-encode', fc.tuple(bodies(s.requests), s.contexts), ([body, ctx]) => {
        const req = s.client.decodeRequest(body, ctx);
        for (const up of upstreamCodecs)
          serialize(gatewayErrorOr(() => up.encodeRequest(req, 'upstream-model', () => {})));
        encodeEverywhere(sampleResult, [{ codec: own.codec, request: req }]);
        streamEverywhere(sampleEvents, [{ codec: own.codec, request: req }]);
      });
    },
  );

  t.test('upstream result: decodeResult, then every client encodeResult', async (t) => {
    fuzz(t, 'decode result', bodies(s.results), (body) => encodeEverywhere(s.upstream.decodeResult(body), clients));
  });

  t.test(
    'upstream stream: push and end over mutated recorded streams, events into every client stream encoder',
    async (t) => {
      fuzz(t, 'decode stream', streams(s.streams), (stream) =>
        streamEverywhere(decodeStream(s.upstream, stream), clients),
      );
    },
  );

  t.test(
    'upstream error: decodeError gives a GatewayError for any status, body and headers; every client encodes it',
    async (t) => {
      const body = fc.oneof(bodies(s.errors), fc.string({ maxLength: 200 }), nastyValue as fc.Arbitrary<unknown>);
      fuzz(t, 'decode error', fc.tuple(status, body, headers), ([st, b, h]) => {
        const err = s.upstream.decodeError(st, b, h);
        if (!(err instanceof GatewayError))
          throw new TypeError('decodeError returned something other than a GatewayError');
        if (err.retryAfter !== undefined && !(Number.isFinite(err.retryAfter) && err.retryAfter >= 0))
          throw new RangeError(`retryAfter ${err.retryAfter}`);
        for (const c of clients) serialize(c.codec.encodeError(err));
      });
    },
  );
}

export type { Json };
