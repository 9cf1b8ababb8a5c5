// Models (GET /admin/models): every `models:` entry with its routes in order, each route's
// provider, upstream name, whether its provider serves, and its breaker on this instance.
import { api } from '../api.js';
import { Badge, ErrorBox, html, usd, useLoad } from '../ui.js';

/** @param {any} price */
const priceText = (price) =>
  price ? `in ${usd(price.input ?? 0)} / out ${usd(price.output ?? 0)} per 1M tokens` : 'provider price or none';

export function ModelsPage() {
  const { data, error } = useLoad(() => api('GET', '/admin/models?limit=500'), []);
  return html`<section>
    <${ErrorBox} error=${error} />
    ${
      data &&
      html`<table>
        <thead>
          <tr>
            <th>Model</th>
            <th>Strategy</th>
            <th>Routes (in order)</th>
            <th>Price</th>
          </tr>
        </thead>
        <tbody>
          ${data.data.map(
            (/** @type {any} */ m) =>
              html`<tr data-model=${m.id}>
                <td>${m.id}${m.glob ? html` <span class="hint">(pattern)</span>` : null}</td>
                <td>${m.strategy}</td>
                <td>
                  <ol class="routes">
                    ${m.routes.map(
                      (/** @type {any} */ r) =>
                        html`<li>
                          ${r.provider} → ${r.upstream_model} <${Badge} state=${r.breaker} />
                          ${r.provider_enabled ? null : html`<span class="badge badge-open">provider off</span>`}
                          ${r.standby ? html`<span class="hint">standby</span>` : null}
                          ${r.weight !== null ? html`<span class="hint">weight ${r.weight}</span>` : null}
                        </li>`,
                    )}
                  </ol>
                </td>
                <td>${priceText(m.price)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }
  </section>`;
}
