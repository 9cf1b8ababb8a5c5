// A target is one way of sending the same load: straight at the mock (the baseline), or through
// a gateway on one path. Every measured row of the table is a target at one load.
import { Pool } from 'undici';
import { benchPaths, baselineFormat, BENCH_KEY, MOCK_KEY, modelFor, type BenchPath, type Upstream } from './paths.ts';
import { clientRequest, streamEndMarker, type ClientRequest, type WireFormat } from './wire-requests.ts';

/**
 * `polygate-before`: the older checkout of an A/B run (BENCH_BEFORE), on the same paths as
 * `polygate`. `floor`: the bare hop (floor-proxy.ts); `framework`: the framework floor
 * (framework-floor.ts); `framework-http-proxy`: the same with http-proxy over node:http as its upstream client,
 * polygate's relay package (issue #28); `portkey` and `ccr` (claude-code-router): the peers.
 */
export type Via =
  'direct' | 'polygate' | 'polygate-before' | 'portkey' | 'floor' | 'framework' | 'framework-http-proxy' | 'ccr';

/** How the report names each way through. */
export const viaName: Record<Via, string> = {
  direct: 'direct',
  polygate: 'polygate',
  'polygate-before': 'polygate (before)',
  portkey: 'portkey',
  floor: 'bare hop',
  framework: 'framework floor',
  'framework-http-proxy': 'framework floor (http-proxy client)',
  ccr: 'claude-code-router',
};

export type Target = {
  /** Unique, e.g. "polygate · E → openai-chat (translate)". */
  id: string;
  path: string;
  via: Via;
  baseUrl: string;
  format: WireFormat;
  /** Id of the direct target this one's overhead is measured against. */
  baselineId: string;
  request(stream: boolean): ClientRequest;
  endMarker: string;
  /** The gateway process serving it, whose CPU time per request is measured (A/B runs). */
  pid?: number;
};

const directId = (f: WireFormat): string => `direct · ${f}`;

export function directTarget(format: WireFormat, mockUrl: string): Target {
  return {
    id: directId(format),
    path: `mock, ${format} format`,
    via: 'direct',
    baseUrl: mockUrl,
    format,
    baselineId: directId(format),
    request: (stream) => clientRequest[format]('bench-mock', MOCK_KEY, stream),
    endMarker: streamEndMarker[format],
  };
}

export function polygateTarget(
  p: BenchPath,
  url: string,
  via: 'polygate' | 'polygate-before' = 'polygate',
  pid?: number,
): Target {
  return {
    id: `${viaName[via]} · ${p.name}`,
    path: p.name,
    via,
    baseUrl: url,
    format: p.inbound,
    baselineId: directId(baselineFormat(p)),
    request: (stream) => clientRequest[p.inbound](modelFor(p.upstream), BENCH_KEY, stream),
    endMarker: streamEndMarker[p.inbound],
    pid,
  };
}

/**
 * A peer or a floor on one of polygate's paths (matched by its inbound and upstream formats),
 * sending `model` (what that gateway routes to the mock) with its own extra headers.
 */
export function peerTarget(
  via: Exclude<Via, 'direct' | 'polygate' | 'polygate-before'>,
  inbound: WireFormat,
  upstream: Upstream,
  url: string,
  model: string,
  headers: Record<string, string> = {},
): Target {
  const p = benchPaths.find((x) => x.inbound === inbound && x.upstream === upstream);
  if (!p) throw new Error(`no bench path from ${inbound} to ${upstream}`);
  return {
    id: `${viaName[via]} · ${p.name}`,
    path: p.name,
    via,
    baseUrl: url,
    format: inbound,
    baselineId: directId(baselineFormat(p)),
    request: (stream) => {
      const r = clientRequest[inbound](model, MOCK_KEY, stream);
      return { ...r, headers: { ...r.headers, ...headers } };
    },
    endMarker: streamEndMarker[inbound],
  };
}

/**
 * The framework floor's measured paths are Chat → Chat and Messages → Messages: a polygate path is
 * compared with the one of its own inbound format, else with the Chat one.
 */
export function frameworkFloorPath(inbound: WireFormat): { inbound: WireFormat; upstream: Upstream; model: string } {
  return inbound === 'messages'
    ? { inbound, upstream: 'anthropic', model: 'claude-bench' }
    : { inbound: 'chat', upstream: 'openai-chat', model: 'gpt-bench' };
}

/** The framework floor's target of the same-format path `frameworkFloorPath(inbound)` names. */
export function frameworkFloorTarget(
  inbound: WireFormat,
  url: string,
  via: 'framework' | 'framework-http-proxy' = 'framework',
): Target {
  const f = frameworkFloorPath(inbound);
  return peerTarget(via, f.inbound, f.upstream, url, f.model);
}

/** One request of each kind; the reason a target cannot serve, or undefined when it can. */
export async function probe(t: Target): Promise<string | undefined> {
  for (const stream of [false, true]) {
    const r = t.request(stream);
    try {
      const res = await fetch(t.baseUrl + r.path, {
        method: 'POST',
        headers: r.headers,
        body: r.body,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (res.status !== 200)
        return `${stream ? 'stream' : 'request'} answered ${res.status}: ${text.slice(0, 160).replace(/\s+/g, ' ')}`;
      if (stream && !text.includes(t.endMarker)) return `stream ended without ${t.endMarker}`;
    } catch (e) {
      return `${stream ? 'stream' : 'request'} failed: ${(e as Error).message}`;
    }
  }
  return undefined;
}

/**
 * A closed loop of non-streamed requests on `path` of polygate at `url`: `connections` workers,
 * each sending its next request when its last answer is read, `n` requests in all per call.
 */
export function requestLoop(
  path: string,
  url: string,
  connections: number,
  stream = false,
): { run: (n: number) => Promise<void>; close: () => Promise<void> } {
  const t = polygateTarget(
    benchPaths.find((p) => p.name === path)!,
    url,
  );
  const pool = new Pool(t.baseUrl, { connections });
  const req = t.request(stream);
  const run = async (n: number): Promise<void> => {
    let left = n;
    const worker = async (): Promise<void> => {
      while (left-- > 0) {
        const r = await pool.request({ path: req.path, method: 'POST', headers: req.headers, body: req.body });
        const text = await r.body.text();
        if (stream && !text.includes(t.endMarker)) throw new Error(`stream without its end: ${text.slice(-200)}`);
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
  };
  return { run, close: () => pool.close() };
}
