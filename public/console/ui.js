// What every console page shares: htm bound to preact, a loader hook that keeps the API's error
// for display, and the formatters of money, counts and times.
import { h } from './vendor/preact.mjs';
import { useCallback, useEffect, useState } from './vendor/hooks.mjs';
import htm from './vendor/htm.mjs';

export const html = htm.bind(h);

/**
 * Runs `load` now and whenever `deps` change; `reload` runs it again.
 * @template T
 * @param {() => Promise<T>} load
 * @param {unknown[]} deps
 * @returns {{ data: T | undefined, error: Error | null, loading: boolean, reload: () => void }}
 */
export function useLoad(load, deps) {
  const [state, setState] = useState(
    /** @type {{ data: T | undefined, error: Error | null, loading: boolean }} */ ({
      data: undefined,
      error: null,
      loading: true,
    }),
  );
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** An API error as the page shows it: status, message and the field named. @param {{ error: any }} p */
export function ErrorBox({ error }) {
  if (!error) return null;
  const status = error.status ? `${error.status} ` : '';
  const param = error.param ? html` <span class="param">(${error.param})</span>` : null;
  return html`<div class="error" role="alert">${status}${error.message}${param}</div>`;
}

/** @param {number | null | undefined} v */
export const usd = (v) => (v === null || v === undefined ? '–' : `$${v < 0.01 && v > 0 ? v.toFixed(6) : v.toFixed(4)}`);
/** @param {number | null | undefined} v */
export const count = (v) => (v === null || v === undefined ? '–' : v.toLocaleString('en-US'));
/** @param {number | null | undefined} v */
export const percent = (v) => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)} %`);
/** @param {string | null | undefined} v */
export const time = (v) => (v ? v.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–');

/** A breaker or key state as a coloured word. @param {{ state: string }} p */
export const Badge = ({ state }) => html`<span class=${`badge badge-${state}`}>${state.replace('_', '-')}</span>`;

/**
 * A labelled input bound to `values[name]`.
 * @param {{ label: string, name: string, values: Record<string, string>, set: (v: Record<string, string>) => void, placeholder?: string, type?: string }} p
 */
export function Field({ label, name, values, set, placeholder, type }) {
  return html`<label class="field"
    >${label}
    <input
      name=${name}
      type=${type || 'text'}
      value=${values[name] || ''}
      placeholder=${placeholder || ''}
      onInput=${(/** @type {any} */ e) => set({ ...values, [name]: e.currentTarget.value })}
  /></label>`;
}
