// A target is one way of sending the same load: straight at the mock (the baseline), or through
// a gateway on one path. Every measured row of the table is a target at one load.
import { benchPaths, baselineFormat, BENCH_KEY, MOCK_KEY, modelFor, type BenchPath } from './paths.ts';
import { clientRequest, streamEndMarker, type ClientRequest, type WireFormat } from './wire-requests.ts';

/** `polygate-before`: the older checkout of an A/B run (BENCH_BEFORE), on the same paths as `polygate`. */
export type Via = 'direct' | 'polygate' | 'polygate-before' | 'portkey' | 'floor';

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

export function polygateTarget(p: BenchPath, url: string, via: 'polygate' | 'polygate-before' = 'polygate', pid?: number): Target {
  return {
    id: `${via === 'polygate' ? 'polygate' : 'polygate (before)'} · ${p.name}`,
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

/** A peer (or the floor hop) on the Chat Completions pass-through path, with its own extra headers. */
export function chatRelayTarget(via: 'portkey' | 'floor', url: string, headers: Record<string, string>): Target {
  const path = benchPaths.find((p) => p.inbound === 'chat' && p.upstream === 'openai-chat')?.name ?? 'chat → openai-chat (pass-through)';
  return {
    id: `${via} · ${path}`,
    path,
    via,
    baseUrl: url,
    format: 'chat',
    baselineId: directId('chat'),
    request: (stream) => {
      const r = clientRequest.chat('gpt-bench', MOCK_KEY, stream);
      return { ...r, headers: { ...r.headers, ...headers } };
    },
    endMarker: streamEndMarker.chat,
  };
}

/** One request of each kind; the reason a target cannot serve, or undefined when it can. */
export async function probe(t: Target): Promise<string | undefined> {
  for (const stream of [false, true]) {
    const r = t.request(stream);
    try {
      const res = await fetch(t.baseUrl + r.path, { method: 'POST', headers: r.headers, body: r.body, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (res.status !== 200) return `${stream ? 'stream' : 'request'} answered ${res.status}: ${text.slice(0, 160).replace(/\s+/g, ' ')}`;
      if (stream && !text.includes(t.endMarker)) return `stream ended without ${t.endMarker}`;
    } catch (e) {
      return `${stream ? 'stream' : 'request'} failed: ${(e as Error).message}`;
    }
  }
  return undefined;
}
