// Providers (GET /admin/providers): each one's type, whether it can serve, its breaker (the worst
// of its routes) and the calls and failures of the last five minutes on this instance.
import { api } from '../api.js';
import { Badge, ErrorBox, count, html, percent, useLoad } from '../ui.js';

/** @param {any} r */
const routeLine = (r) =>
  html`<li>
    ${r.upstream_model} <${Badge} state=${r.breaker} /> ${count(r.calls)} calls, ${percent(r.error_rate)} failed
    ${r.retry_in_ms > 0 ? html`, probing in ${Math.ceil(r.retry_in_ms / 1000)} s` : null}
  </li>`;

export function ProvidersPage() {
  const { data, error, reload } = useLoad(() => api('GET', '/admin/providers?limit=500'), []);
  return html`<section>
    <p class="hint">
      Breaker state and error rate are this instance's (the last five minutes of upstream calls).
      <button onClick=${reload}>Refresh</button>
    </p>
    <${ErrorBox} error=${error} />
    ${
      data &&
      html`<table>
        <thead>
          <tr>
            <th>Provider</th>
            <th>Type</th>
            <th>Serving</th>
            <th>Breaker</th>
            <th>Calls</th>
            <th>Error rate</th>
            <th>Upstream models seen</th>
          </tr>
        </thead>
        <tbody>
          ${data.data.map(
            (/** @type {any} */ p) =>
              html`<tr data-provider=${p.id}>
                <td>${p.id}</td>
                <td>${p.type}</td>
                <td>${p.enabled ? 'yes' : html`<span title=${p.disabled_reason}>no: ${p.disabled_reason}</span>`}</td>
                <td><${Badge} state=${p.breaker} /></td>
                <td class="num">${count(p.recent.calls)}</td>
                <td class="num">${percent(p.recent.error_rate)}</td>
                <td>
                  <ul class="routes">
                    ${p.routes.map(routeLine)}
                  </ul>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }
  </section>`;
}
