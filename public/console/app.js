// The console page: sign-in, then one page per tab (docs/console.md). The tab is in the URL's
// fragment (#keys…), which never reaches the server.
import { render } from './vendor/preact.mjs';
import { useEffect, useState } from './vendor/hooks.mjs';
import { currentSession, signIn, signOut, whenSignedOut } from './api.js';
import { ErrorBox, html } from './ui.js';
import { ProvidersPage } from './pages/providers.js';
import { ModelsPage } from './pages/models.js';
import { KeysPage } from './pages/keys.js';
import { SpendPage } from './pages/spend.js';
import { RequestsPage } from './pages/requests.js';
import { BudgetsPage } from './pages/budgets.js';

const pages = [
  { id: 'providers', title: 'Providers', Page: ProvidersPage },
  { id: 'models', title: 'Models', Page: ModelsPage },
  { id: 'keys', title: 'Keys', Page: KeysPage },
  { id: 'spend', title: 'Spend', Page: SpendPage },
  { id: 'requests', title: 'Requests', Page: RequestsPage },
  { id: 'budgets', title: 'Budgets', Page: BudgetsPage },
];

const tabOfHash = () => {
  const id = location.hash.replace(/^#/, '');
  return pages.some((p) => p.id === id) ? id : 'providers';
};

/** @param {{ onIn: (v: any) => void }} p */
function SignIn({ onIn }) {
  const [error, setError] = useState(/** @type {any} */ (null));
  const [busy, setBusy] = useState(false);
  /** @param {SubmitEvent} e */
  const submit = async (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const token = String(new FormData(form).get('token') || '');
    setBusy(true);
    try {
      const view = await signIn(token);
      form.reset();
      onIn(view);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="signin" method="post" action="/console/session" onSubmit=${submit}>
    <h1>polygate console</h1>
    <label class="field"
      >Admin token <input name="token" type="password" autocomplete="current-password" required
    /></label>
    <button type="submit" disabled=${busy}>Sign in</button>
    <${ErrorBox} error=${error} />
  </form>`;
}

function App() {
  const [session, setSession] = useState(/** @type {any} */ (undefined));
  const [tab, setTab] = useState(tabOfHash());
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    currentSession().then(setSession, () => setSession(null));
    const onHash = () => setTab(tabOfHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (session === undefined) return html`<p class="loading">Loading…</p>`;
  if (session === null) return html`<${SignIn} onIn=${setSession} />`;
  const current = pages.find((p) => p.id === tab) || pages[0];
  const out = async () => {
    await signOut().catch(() => {});
    setSession(null);
  };
  return html`<header>
      <strong>polygate</strong>
      <nav>
        ${pages.map(
          (p) =>
            html`<a href=${`#${p.id}`} class=${p.id === current.id ? 'active' : ''} data-tab=${p.id}>${p.title}</a>`,
        )}
      </nav>
      <button class="signout" onClick=${out}>Sign out</button>
    </header>
    <main data-page=${current.id}>
      <h1>${current.title}</h1>
      <${current.Page} />
    </main>`;
}

render(html`<${App} />`, /** @type {HTMLElement} */ (document.getElementById('app')));
