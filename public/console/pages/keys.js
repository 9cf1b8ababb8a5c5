// Keys (the keys API, /admin/keys): list, create, rotate, disable and enable. A new or rotated
// secret is shown once, here, and is gone from the page when dismissed; the API never shows it again.
import { api } from '../api.js';
import { useState } from '../vendor/hooks.mjs';
import { Badge, ErrorBox, Field, html, time, useLoad } from '../ui.js';

/** @param {string} s */
const list = (s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The create form's values as the API's body; empty fields are left out. @param {Record<string, string>} v */
function createBody(v) {
  /** @type {Record<string, unknown>} */
  const body = { workspace: v.workspace || '' };
  if (v.id) body.id = v.id;
  if (v.models) body.models = list(v.models);
  /** @type {Record<string, number>} */
  const limits = {};
  for (const k of ['rpm', 'tpm', 'concurrency']) if (v[k]) limits[k] = Number(v[k]);
  if (Object.keys(limits).length > 0) body.limits = limits;
  if (v.usd_per_day) body.budget = { limits: [{ period: 'day', usd: Number(v.usd_per_day) }] };
  if (v.expires_at) body.expires_at = v.expires_at;
  return body;
}

/** @param {{ shown: { id: string, secret: string, why: string }, onDone: () => void }} p */
function SecretOnce({ shown, onDone }) {
  return html`<div class="secret" role="status">
    <p>${shown.why} <strong>${shown.id}</strong>. Copy the secret now: it is not shown again.</p>
    <code data-secret>${shown.secret}</code>
    <button onClick=${onDone}>I have stored it</button>
  </div>`;
}

/** @param {{ k: any, act: (k: any, what: string) => void }} p */
function KeyRow({ k, act }) {
  const runtime = k.source === 'runtime';
  const limits = k.limits || {};
  return html`<tr data-key=${k.id}>
    <td>${k.id}</td>
    <td>${k.workspace}</td>
    <td>${(k.models || []).join(', ')}</td>
    <td>${['rpm', 'tpm', 'concurrency'].map((n) => (limits[n] ? `${n} ${limits[n]} ` : ''))}</td>
    <td>…${k.secret_hint || ''}</td>
    <td><${Badge} state=${k.disabled ? 'disabled' : 'active'} /></td>
    <td>${k.source}</td>
    <td>${time(k.expires_at)}</td>
    <td>
      ${
        runtime
          ? html`<button data-action="rotate" onClick=${() => act(k, 'rotate')}>Rotate</button>
              <button
                data-action=${k.disabled ? 'enable' : 'disable'}
                onClick=${() => act(k, k.disabled ? 'enable' : 'disable')}
              >
                ${k.disabled ? 'Enable' : 'Disable'}
              </button>`
          : html`<span class="hint">read-only (config file)</span>`
      }
    </td>
  </tr>`;
}

export function KeysPage() {
  const { data, error, reload } = useLoad(() => api('GET', '/admin/keys?limit=500'), []);
  const [values, setValues] = useState(/** @type {Record<string, string>} */ ({}));
  const [actionError, setActionError] = useState(/** @type {any} */ (null));
  const [shown, setShown] = useState(/** @type {any} */ (null));
  const [grace, setGrace] = useState('0');

  /** @param {SubmitEvent} e */
  const create = async (e) => {
    e.preventDefault();
    setActionError(null);
    try {
      const r = await api('POST', '/admin/keys', createBody(values));
      setShown({ id: r.key.id, secret: r.secret, why: 'Created key' });
      setValues({});
      reload();
    } catch (err) {
      setActionError(err);
    }
  };
  /** @param {any} k @param {string} what */
  const act = async (k, what) => {
    setActionError(null);
    try {
      const path = `/admin/keys/${encodeURIComponent(k.id)}/${what}`;
      const r = await api('POST', path, what === 'rotate' ? { grace_seconds: Number(grace) } : undefined);
      if (what === 'rotate') setShown({ id: r.key.id, secret: r.secret, why: 'New secret of key' });
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return html`<section>
    ${shown && html`<${SecretOnce} shown=${shown} onDone=${() => setShown(null)} />`}
    <form class="create" onSubmit=${create}>
      <h2>New key</h2>
      <${Field} label="Id (optional)" name="id" values=${values} set=${setValues} />
      <${Field} label="Workspace" name="workspace" values=${values} set=${setValues} />
      <${Field} label="Models" name="models" values=${values} set=${setValues} placeholder="gpt-*, echo" />
      <${Field} label="rpm" name="rpm" values=${values} set=${setValues} type="number" />
      <${Field} label="tpm" name="tpm" values=${values} set=${setValues} type="number" />
      <${Field} label="Concurrency" name="concurrency" values=${values} set=${setValues} type="number" />
      <${Field} label="USD a day" name="usd_per_day" values=${values} set=${setValues} type="number" />
      <${Field} label="Expires (ISO time)" name="expires_at" values=${values} set=${setValues} />
      <button type="submit">Create key</button>
    </form>
    <p class="hint">
      On rotate the old secret stays valid for
      <select name="grace" value=${grace} onChange=${(/** @type {any} */ e) => setGrace(e.currentTarget.value)}>
        <option value="0">no time (refused at once)</option>
        <option value="300">5 minutes</option>
        <option value="3600">1 hour</option>
        <option value="86400">1 day</option>
      </select>
    </p>
    <${ErrorBox} error=${actionError} />
    <${ErrorBox} error=${error} />
    ${
      data &&
      html`<table>
        <thead>
          <tr>
            <th>Id</th>
            <th>Workspace</th>
            <th>Models</th>
            <th>Limits</th>
            <th>Secret</th>
            <th>State</th>
            <th>Source</th>
            <th>Expires</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${data.data.map((/** @type {any} */ k) => html`<${KeyRow} k=${k} act=${act} />`)}
        </tbody>
      </table>`
    }
  </section>`;
}
