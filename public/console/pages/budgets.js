// Budgets (GET /admin/budgets): every budget in force, on a key, a workspace or a provider, with
// what is used of it in its current period.
import { api } from '../api.js';
import { ErrorBox, count, html, percent, time, usd, useLoad } from '../ui.js';

/** @param {{ ratio: number, soft: number | null }} p */
function Bar({ ratio, soft }) {
  const level = ratio >= 1 ? 'over' : soft !== null && ratio >= soft ? 'soft' : 'ok';
  // A style set through the DOM (preact sets element.style), which the CSP allows; no style attribute.
  return html`<span class="bar"
    ><span class=${`fill ${level}`} style=${{ width: `${Math.min(100, ratio * 100)}%` }}></span
  ></span>`;
}

export function BudgetsPage() {
  const { data, error, reload } = useLoad(() => api('GET', '/admin/budgets'), []);
  const rows = data && Array.isArray(data.data) ? data.data : null;
  return html`<section>
    <p class="hint"><button onClick=${reload}>Refresh</button></p>
    <${ErrorBox} error=${error} />
    ${data && !rows ? html`<div class="error">This gateway's /admin/budgets answers in an older shape.</div>` : null}
    ${
      rows &&
      html`<table>
        <thead>
          <tr>
            <th>Scope</th>
            <th>Period</th>
            <th>Limit</th>
            <th>Used</th>
            <th>Share</th>
            <th>Resets</th>
            <th>Source</th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length === 0
              ? html`<tr>
                  <td colspan="7" class="hint">No budgets are set.</td>
                </tr>`
              : null
          }
          ${rows.map(
            (/** @type {any} */ b) =>
              html`<tr data-scope=${`${b.scope.kind}:${b.scope.id}`}>
                <td>${b.scope.kind} <strong>${b.scope.id}</strong></td>
                <td>${b.period}</td>
                <td>
                  ${b.limit_usd !== null ? usd(b.limit_usd) : null}
                  ${b.limit_tokens !== null ? `${count(b.limit_tokens)} tokens` : null}
                </td>
                <td>${b.limit_usd !== null ? usd(b.used_usd) : `${count(b.used_tokens)} tokens`}</td>
                <td><${Bar} ratio=${b.ratio} soft=${b.soft_ratio} /> ${percent(b.ratio)}</td>
                <td>${time(b.resets_at)}</td>
                <td>${b.source}</td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }
  </section>`;
}
