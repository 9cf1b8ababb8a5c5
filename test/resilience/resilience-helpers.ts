// Small helpers of the resilience, limits and Redis tests: metric samples and SSE frames.
import type { RunningGateway } from '../helpers/start-gateway.ts';

/** One sample of /metrics by name and exact labels (a subset of them); 0 when absent. */
export async function metricValue(
  gw: RunningGateway,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  let sum = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const have = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      sum += Number(m[2]);
      found = true;
    }
  }
  return found ? sum : 0;
}

export { waitFor as waitUntil } from '../helpers/wait-for.ts';

export type SseEvent = { event?: string; data: string };

/** Splits an event-stream body into its events. */
export function sseEvents(text: string): SseEvent[] {
  return text
    .split(/\n\n/)
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      return { event, data: data.join('\n') };
    })
    .filter((e) => e.data !== '' || e.event !== undefined);
}

/** The text a Messages event stream carried: its content_block_delta texts, joined. */
export function messagesStreamText(events: SseEvent[]): string {
  return events
    .filter((e) => e.event === 'content_block_delta')
    .map((e) => (JSON.parse(e.data) as { delta: { text: string } }).delta.text)
    .join('');
}
