// The official SDK's Responses WebSocket (openai's ResponsesWS) against a running polygate, and
// one turn on it: send response.create, collect the server events until the response ends.
import OpenAI from 'openai';
import type { ResponsesClientEvent, ResponsesServerEvent } from 'openai/resources/responses/responses';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { citySchema } from '../helpers/city-schema.ts';
import { TEST_KEY, type RunningGateway } from '../helpers/start-gateway.ts';

export function connectWs(gw: RunningGateway, key = TEST_KEY): ResponsesWS {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1` });
  const ws = new ResponsesWS(client);
  // Errors also arrive as 'event' messages; a listener keeps the SDK from throwing them.
  ws.on('error', () => {});
  return ws;
}

/** The function tool the chain tests call. */
export const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: citySchema,
  strict: true,
};

const terminal = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

type Create = Omit<ResponsesClientEvent & { type: 'response.create' }, 'type'>;

/** Sends one response.create; resolves with every event of that response, the last one ending it. */
export function wsTurn(ws: ResponsesWS, body: Create): Promise<ResponsesServerEvent[]> {
  return new Promise((resolve) => {
    const events: ResponsesServerEvent[] = [];
    const on = (e: ResponsesServerEvent): void => {
      events.push(e);
      if (terminal.has(e.type)) {
        ws.off('event', on);
        resolve(events);
      }
    };
    ws.on('event', on);
    ws.send({ type: 'response.create', ...body } as ResponsesClientEvent);
  });
}

/** The response object of a turn's final event (throws if the turn ended in an `error` event). */
export function finalResponse(events: ResponsesServerEvent[]): OpenAI.Responses.Response {
  const last = events[events.length - 1];
  if (last?.type === 'response.completed' || last?.type === 'response.incomplete' || last?.type === 'response.failed')
    return last.response;
  throw new Error(`the turn ended without a response: ${JSON.stringify(last)}`);
}

export function closeWs(ws: ResponsesWS): Promise<number> {
  return new Promise((resolve) => {
    ws.on('close', (code) => resolve(code));
    ws.close({ code: 1000, reason: 'done' });
  });
}
