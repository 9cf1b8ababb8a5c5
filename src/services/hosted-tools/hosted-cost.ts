// What the searches and fetches polygate ran for a request cost, by `hosted_tools.price_per_*`
// (docs/hosted-tools.md): added to the request's cost in the usage ledger.
import type { HostedToolsConfig } from '../../infra/config/hosted-tools-config.ts';
import type { Usage } from '../../ir/chat-result.ts';
import { nanoPerUsd } from '../usage/prices.ts';

export function hostedToolsCostNano(c: HostedToolsConfig, u: Usage | undefined): number {
  if (!u) return 0;
  const usd = (u.webSearchRequests ?? 0) * c.price_per_search_usd + (u.webFetchRequests ?? 0) * c.price_per_fetch_usd;
  return Math.round(usd * nanoPerUsd);
}
