// The request log (GET /admin/requests): newest first, filtered as the API filters, a page at a
// time (the API's cursor), each row with its ids, route, tokens, cost, latency and warnings.
import { api, query } from '../api.js';
import { useState } from '../vendor/hooks.mjs';
import { ErrorBox, Field, count, html, time, usd, useLoad } from '../ui.js';

const filters = ['key', 'workspace', 'model', 'provider', 'outcome', 'status', 'since', 'until'];

/** @param {{ r: any }} p */
function Row({ r }) {
  return html`<tr data-request=${r.request_id} class=${r.status >= 400 ? 'failed' : ''}>
    <td>${time(r.time)}</td>
    <td>${r.key}</td>
    <td>${r.workspace}</td>
    <td>${r.model}</td>
    <td>${r.provider}${r.upstream_model && r.upstream_model !== r.model ? ` (${r.upstream_model})` : ''}</td>
    <td>${r.route}</td>
    <td class="num">${r.status}</td>
    <td>${r.outcome}</td>
    <td class="num">${count(r.input_tokens)} / ${count(r.output_tokens)}</td>
    <td class="num">${usd(r.cost_usd)}</td>
    <td class="num">${count(r.latency_ms)} ms</td>
    <td>${(r.warnings || []).join('; ')}</td>
    <td><code>${r.request_id}</code></td>
  </tr>`;
}

export function RequestsPage() {
  const [values, setValues] = useState(/** @type {Record<string, string>} */ ({}));
  const [applied, setApplied] = useState(/** @type {Record<string, string>} */ ({}));
  const [cursors, setCursors] = useState(/** @type {string[]} */ ([]));
  const cursor = cursors[cursors.length - 1];
  const { data, error, reload } = useLoad(
    () => api('GET', `/admin/requests${query({ ...applied, limit: 50, cursor })}`),
    [applied, cursor],
  );
  /** @param {SubmitEvent} e */
  const apply = (e) => {
    e.preventDefault();
    setCursors([]);
    setApplied({ ...values });
  };
  return html`<section>
    <form class="filters" onSubmit=${apply}>
      ${filters.map(
        (f) =>
          html`<${Field}
            label=${f}
            name=${f}
            values=${values}
            set=${setValues}
            placeholder=${f === 'since' || f === 'until' ? 'ISO time' : ''}
          />`,
      )}
      <button type="submit">Filter</button>
      <button type="button" onClick=${reload}>Refresh</button>
    </form>
    <${ErrorBox} error=${error} />
    ${
      data &&
      html`<table class="log">
          <thead>
            <tr>
              <th>Time</th>
              <th>Key</th>
              <th>Workspace</th>
              <th>Model</th>
              <th>Provider</th>
              <th>Route</th>
              <th>Status</th>
              <th>Outcome</th>
              <th>Tokens in / out</th>
              <th>Cost</th>
              <th>Latency</th>
              <th>Warnings</th>
              <th>Request id</th>
            </tr>
          </thead>
          <tbody>
            ${
              data.data.length === 0
                ? html`<tr>
                    <td colspan="13" class="hint">No requests match.</td>
                  </tr>`
                : null
            }
            ${data.data.map((/** @type {any} */ r) => html`<${Row} r=${r} />`)}
          </tbody>
        </table>
        <p class="pager">
          ${cursors.length > 0 ? html`<button onClick=${() => setCursors(cursors.slice(0, -1))}>Newer</button>` : null}
          ${data.next_cursor ? html`<button onClick=${() => setCursors([...cursors, data.next_cursor])}>Older</button>` : null}
        </p>`
    }
  </section>`;
}
